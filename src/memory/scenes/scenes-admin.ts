import { z } from 'zod';
import { notFound } from '../../core/errors.js';
import { parseInput } from '../../core/validate.js';
import type { Scene, Topic } from '../../store/conversation-rows.js';
import type { DeleteReport, MergeReport, TopicMessages } from '../../store/scenes-repo.js';
import type { MemoryContext } from '../context.js';
import { idSchema, nameSchema } from '../conversation/limits.js';

/** A scene as `listScenes` shows it. */
export interface ListedScene extends Scene {
  /** True for the scene `search` continues. */
  readonly current: boolean;
}

/** One row of a scene's transcript. */
export interface SceneContextTopic extends Topic {
  /** The topic's utterances in slot order (a fused topic's own message is its `dream` reconstruction). */
  readonly messages: TopicMessages['messages'];
  /** Children among the listed rows (folded turns under a fused topic). */
  readonly childCount: number;
}

/** What `sceneContext` returns; a domain with no scene gives `scene: undefined` and no topics. */
export interface SceneContext {
  readonly scene: Scene | undefined;
  /** The open turn, when it is in this scene (it is not listed among `topics` until closed). */
  readonly openTurnId: string | undefined;
  readonly topics: readonly SceneContextTopic[];
}

const listSchema = z.strictObject({ knowledgeId: idSchema.optional() });

/** The agent's scenes, oldest first; with `knowledgeId`, only those anchored to that graph. */
export function listScenes(context: MemoryContext, options: unknown = {}): ListedScene[] {
  const parsed = parseInput(listSchema, options ?? {}, 'listScenes');
  const scenes = context.store.conversation.scenes;
  return context.store.engine.read('listScenes', () => {
    const current = scenes.currentScene(context.agentId)?.id;
    return scenes
      .listScenes(context.agentId, parsed.knowledgeId)
      .map((scene) => ({ ...scene, current: scene.id === current }));
  });
}

/**
 * A scene's transcript (the current scene when `sceneId` is left out): its closed topics of
 * depth ≤ 2 ordered by (first utterance time, depth, id), each with its utterances. Pure read:
 * opens no turn. `NOT_FOUND` for a named scene that does not exist.
 */
export function sceneContext(context: MemoryContext, sceneId?: unknown): SceneContext {
  const id = sceneId === undefined ? undefined : parseInput(idSchema, sceneId, 'sceneContext.sceneId');
  const scenes = context.store.conversation.scenes;
  return context.store.engine.read('sceneContext', () => {
    const scene =
      id === undefined ? scenes.currentScene(context.agentId) : scenes.getScene(context.agentId, id);
    if (!scene) {
      if (id !== undefined) throw notFound(`sceneContext: no scene ${id} for this agent`);
      return { scene: undefined, openTurnId: undefined, topics: [] };
    }
    const rows = scenes.sceneTopics(scene.id);
    const listed = new Set(rows.map((row) => row.topic.id));
    const childCount = new Map<string, number>();
    for (const { topic } of rows) {
      if (topic.parentId !== undefined && listed.has(topic.parentId))
        childCount.set(topic.parentId, (childCount.get(topic.parentId) ?? 0) + 1);
    }
    const open = scenes.openTurnOf(context.agentId);
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

const scenePatchSchema = z
  .strictObject({
    name: nameSchema.optional(),
    knowledgeId: z.union([idSchema, z.null()]).optional(),
    force: z.boolean().optional(),
  })
  .refine((patch) => patch.name !== undefined || patch.knowledgeId !== undefined, {
    message: 'give a name or a knowledgeId (null clears the anchor)',
  });

/** What `updateScene` takes. `knowledgeId: null` clears the anchor; replacing one needs `force`. */
export type SceneUpdate = z.input<typeof scenePatchSchema>;

/** Renames and/or re-anchors a scene; writes nothing when nothing changes. */
export function updateScene(context: MemoryContext, sceneId: unknown, patch: unknown): Scene {
  const id = parseInput(idSchema, sceneId, 'updateScene.sceneId');
  const parsed = parseInput(scenePatchSchema, patch, 'updateScene');
  return context.store.conversation.scenes.updateScene(context.agentId, id, parsed);
}

/** Names a topic (host-owned, never derived); writes nothing when the name is the same. */
export function renameTopic(context: MemoryContext, topicId: unknown, name: unknown): Topic {
  const id = parseInput(idSchema, topicId, 'renameTopic.topicId');
  const checked = parseInput(nameSchema, name, 'renameTopic.name');
  return context.store.conversation.scenes.renameTopic(context.agentId, id, checked);
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
export function mergeScenes(context: MemoryContext, sceneId: unknown, secondaryIds: unknown): MergeReport {
  const parsed = parseInput(mergeSchema, { sceneId, secondaryIds }, 'mergeScenes');
  return context.store.conversation.scenes.mergeScenes(context.agentId, parsed.sceneId, parsed.secondaryIds);
}

/** Deletes a scene and everything in it (topics, records, plan steps, index rows); reports what went. */
export function deleteScene(context: MemoryContext, sceneId: unknown): DeleteReport {
  const id = parseInput(idSchema, sceneId, 'deleteScene.sceneId');
  return context.store.conversation.scenes.deleteScene(context.agentId, id);
}

/** Deletes a topic and the topics under it, with their records, plan steps and index rows. */
export function deleteTopic(context: MemoryContext, topicId: unknown): DeleteReport {
  const id = parseInput(idSchema, topicId, 'deleteTopic.topicId');
  return context.store.conversation.scenes.deleteTopic(context.agentId, id);
}
