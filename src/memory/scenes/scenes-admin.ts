import { z } from 'zod';
import { notFound } from '../../core/errors.js';
import { parseInput } from '../../core/validate.js';
import {
  type Scene,
  type Topic,
  type DeleteReport,
  type MergeReport,
  idSchema,
  nameSchema,
  type ListedScene,
  type SceneContext,
  scenePatchSchema,
} from '../../core/model/conversation.js';
import type { MemoryContext } from '../context.js';

const listSchema = z.strictObject({ knowledgeId: idSchema.optional() });

/** The agent's scenes, oldest first; with `knowledgeId`, only those anchored to that graph. */
export function listScenes(context: MemoryContext, options: unknown = {}): Promise<ListedScene[]> {
  const parsed = parseInput(listSchema, options ?? {}, 'listScenes');
  return context.store.read('listScenes', async (tx) => {
    const scenes = tx.conversation.scenes;
    const current = (await scenes.currentScene(context.agentId))?.id;
    return (await scenes.listScenes(context.agentId, parsed.knowledgeId)).map((scene) => ({
      ...scene,
      current: scene.id === current,
    }));
  });
}

/**
 * A scene's transcript (the current scene when `sceneId` is left out): its closed topics of
 * depth ≤ 2 ordered by (first utterance time, depth, id), each with its utterances. Pure read:
 * opens no turn. `NOT_FOUND` for a named scene that does not exist.
 */
export function sceneContext(context: MemoryContext, sceneId?: unknown): Promise<SceneContext> {
  const id = sceneId === undefined ? undefined : parseInput(idSchema, sceneId, 'sceneContext.sceneId');
  return context.store.read('sceneContext', async (tx) => {
    const scenes = tx.conversation.scenes;
    const scene = await (id === undefined
      ? scenes.currentScene(context.agentId)
      : scenes.getScene(context.agentId, id));
    if (!scene) {
      if (id !== undefined) throw notFound(`sceneContext: no scene ${id} for this agent`);
      return { scene: undefined, openTurnId: undefined, topics: [] };
    }
    const rows = await scenes.sceneTopics(scene.id);
    const listed = new Set(rows.map((row) => row.topic.id));
    const childCount = new Map<string, number>();
    for (const { topic } of rows) {
      if (topic.parentId !== undefined && listed.has(topic.parentId))
        childCount.set(topic.parentId, (childCount.get(topic.parentId) ?? 0) + 1);
    }
    const open = await scenes.openTurnOf(context.agentId);
    return {
      scene,
      openTurnId: open?.sceneId === scene.id ? open.id : undefined,
      topics: rows.map(({ topic, messages }) => ({
        ...topic,
        messages,
        childCount: childCount.get(topic.id) ?? 0,
      })),
    };
  });
}

/** Renames and/or re-anchors a scene; writes nothing when nothing changes. */
export function updateScene(context: MemoryContext, sceneId: unknown, patch: unknown): Promise<Scene> {
  const id = parseInput(idSchema, sceneId, 'updateScene.sceneId');
  const parsed = parseInput(scenePatchSchema, patch, 'updateScene');
  return context.store.write('updateScene', (tx) =>
    tx.conversation.scenes.updateScene(context.agentId, id, parsed),
  );
}

/** Names a topic (host-owned, never derived); writes nothing when the name is the same. */
export function renameTopic(context: MemoryContext, topicId: unknown, name: unknown): Promise<Topic> {
  const id = parseInput(idSchema, topicId, 'renameTopic.topicId');
  const checked = parseInput(nameSchema, name, 'renameTopic.name');
  return context.store.write('renameTopic', (tx) =>
    tx.conversation.scenes.renameTopic(context.agentId, id, checked),
  );
}

const mergeSchema = z
  .strictObject({
    sceneId: idSchema,
    secondaryIds: z.array(idSchema).min(1, 'must name at least one scene to merge'),
  })
  .check((ctx) => {
    const { sceneId, secondaryIds } = ctx.value;
    if (secondaryIds.includes(sceneId))
      ctx.issues.push({
        code: 'custom',
        path: ['secondaryIds'],
        message: 'must not include the scene merged into',
        input: secondaryIds,
      });
    if (new Set(secondaryIds).size !== secondaryIds.length)
      ctx.issues.push({
        code: 'custom',
        path: ['secondaryIds'],
        message: 'must not repeat a scene',
        input: secondaryIds,
      });
  });

/**
 * Moves every topic of `secondaryIds` into `sceneId` and deletes those scenes, in one
 * transaction. The kept scene's anchor wins; else it adopts the merged scenes' single anchor
 * (two different ones are a `CONFLICT`). An open turn in a merged scene stays open, moved.
 */
export function mergeScenes(
  context: MemoryContext,
  sceneId: unknown,
  secondaryIds: unknown,
): Promise<MergeReport> {
  const parsed = parseInput(mergeSchema, { sceneId, secondaryIds }, 'mergeScenes');
  return context.store.write('mergeScenes', (tx) =>
    tx.conversation.scenes.mergeScenes(context.agentId, parsed.sceneId, parsed.secondaryIds),
  );
}

/** Deletes a scene and everything in it (topics, records, plan steps, index rows); reports what went. */
export function deleteScene(context: MemoryContext, sceneId: unknown): Promise<DeleteReport> {
  const id = parseInput(idSchema, sceneId, 'deleteScene.sceneId');
  return context.store.write('deleteScene', (tx) => tx.conversation.scenes.deleteScene(context.agentId, id));
}

/** Deletes a topic and the topics under it, with their records, plan steps and index rows. */
export function deleteTopic(context: MemoryContext, topicId: unknown): Promise<DeleteReport> {
  const id = parseInput(idSchema, topicId, 'deleteTopic.topicId');
  return context.store.write('deleteTopic', (tx) => tx.conversation.scenes.deleteTopic(context.agentId, id));
}
