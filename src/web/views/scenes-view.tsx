import { useState } from 'preact/hooks';
import { api, seg } from '../api-client.js';
import type { ArchiveRecord, PlanNode, PlanState, Scene, SceneContext, SceneTopic } from '../types.js';
import { useAsync } from '../use-async.js';
import { ErrorNote, Loading, When } from './status.js';

function PlanTree({ nodes }: { readonly nodes: readonly PlanNode[] }) {
  return (
    <ul class="plan">
      {nodes.map((node) => (
        <li key={node.seq} class={`plan-step ${node.status}`}>
          <span class="badge">{node.status.replace('_', ' ')}</span> {node.title}
          {node.summary ? <span class="meta"> — {node.summary}</span> : null}
          {node.children.length > 0 ? <PlanTree nodes={node.children} /> : null}
        </li>
      ))}
    </ul>
  );
}

function OpenPlan({ agent, refresh }: { readonly agent: string; readonly refresh: number }) {
  const plan = useAsync(() => api.get<PlanState>(`/api/agents/${seg(agent)}/plan`), [agent, refresh]);
  if (!plan.data || plan.data.totalCount === 0) return null;
  return (
    <section class="open-plan" aria-label="plan of the open turn">
      <h3>
        Open turn plan{' '}
        <span class="meta">
          ({plan.data.doneCount}/{plan.data.totalCount} done)
        </span>
      </h3>
      <PlanTree nodes={plan.data.roots} />
    </section>
  );
}

function TurnRecords({ agent, topicId }: { readonly agent: string; readonly topicId: string }) {
  const state = useAsync(
    () => api.get<{ records: ArchiveRecord[] }>(`/api/agents/${seg(agent)}/turns/${seg(topicId)}`),
    [agent, topicId],
  );
  if (state.error) return <ErrorNote error={state.error} />;
  if (!state.data) return <Loading what="the turn" />;
  const records = state.data.records;
  const steps = [...new Set(records.flatMap((r) => (r.planStep === undefined ? [] : [r.planStep])))];
  return (
    <div class="turn-body">
      <ol class="records">
        {records.map((record) => (
          <li key={record.id} class={`record ${record.kind}`}>
            {record.kind === 'utterance' ? (
              <p>
                <strong>{record.speaker ?? record.role}</strong>: {record.content}
              </p>
            ) : (
              <p>
                <span class="badge">{record.eventType}</span>
                {record.planStep !== undefined ? (
                  <span class="meta"> step {record.planStep}</span>
                ) : null}{' '}
                <code class="event">{record.content}</code>
              </p>
            )}
          </li>
        ))}
      </ol>
      {steps.length > 0 ? <p class="meta">Events belong to plan steps {steps.join(', ')}.</p> : null}
    </div>
  );
}

function Turn({ agent, topic }: { readonly agent: string; readonly topic: SceneTopic }) {
  const [open, setOpen] = useState(false);
  const first = topic.messages[0]?.content ?? '';
  const title =
    topic.name ??
    (topic.kind === 'fused' ? `fused topic (${topic.childCount} turns)` : `turn ${topic.turnSeq ?? ''}`);
  return (
    <li class={`turn depth-${topic.depth}`}>
      <details onToggle={(e) => setOpen(e.currentTarget.open)} data-turn={topic.id}>
        <summary>
          <span class="turn-title">{title}</span>{' '}
          <span class="meta">{topic.userTs ? <When ms={topic.userTs} /> : null}</span>
          <span class="turn-preview"> {first.length > 90 ? `${first.slice(0, 89)}…` : first}</span>
          {topic.keywords.length > 0 ? (
            <span class="meta"> · {topic.keywords.slice(0, 6).join(', ')}</span>
          ) : null}
        </summary>
        {topic.outcome ? <p class="meta">Outcome: {topic.outcome}</p> : null}
        {open ? <TurnRecords agent={agent} topicId={topic.id} /> : null}
      </details>
    </li>
  );
}

function Timeline(props: { readonly agent: string; readonly sceneId: string; readonly refresh: number }) {
  const state = useAsync(
    () => api.get<SceneContext>(`/api/agents/${seg(props.agent)}/scenes/${seg(props.sceneId)}`),
    [props.agent, props.sceneId, props.refresh],
  );
  if (state.error) return <ErrorNote error={state.error} />;
  if (!state.data) return <Loading what="the scene" />;
  const { topics, openTurnId } = state.data;
  return (
    <div>
      <h2>{state.data.scene ? sceneTitle(state.data.scene) : undefined}</h2>
      {openTurnId ? (
        <>
          <p class="meta">A turn is open in this scene ({openTurnId}).</p>
          <OpenPlan agent={props.agent} refresh={props.refresh} />
        </>
      ) : null}
      {topics.length === 0 ? (
        <p class="empty">No closed turns yet.</p>
      ) : (
        <ol class="timeline" data-testid="timeline">
          {topics.map((topic) => (
            <Turn key={topic.id} agent={props.agent} topic={topic} />
          ))}
        </ol>
      )}
    </div>
  );
}

/** Scenes: a list of conversations; each opens as a timeline of turns. */
export function ScenesView({ agent, refresh }: { readonly agent: string; readonly refresh: number }) {
  const [sceneId, setSceneId] = useState<string | undefined>(undefined);
  const list = useAsync(() => api.get<Scene[]>(`/api/agents/${seg(agent)}/scenes`), [agent, refresh]);
  if (list.error) return <ErrorNote error={list.error} />;
  if (!list.data) return <Loading what="scenes" />;
  if (list.data.length === 0)
    return <p class="empty">No scenes yet: they appear once the agent runs turns.</p>;
  const chosen = sceneId ?? list.data.find((s) => s.current)?.id ?? list.data[list.data.length - 1]?.id;
  return (
    <div class="split scenes">
      <nav class="list-pane" aria-label="scenes">
        <ul class="scene-list">
          {[...list.data].reverse().map((scene) => (
            <li key={scene.id}>
              <button
                type="button"
                class={scene.id === chosen ? 'scene current' : 'scene'}
                aria-pressed={scene.id === chosen}
                onClick={() => setSceneId(scene.id)}
              >
                <strong>{sceneTitle(scene)}</strong>
                <span class="meta">
                  {' '}
                  {scene.turnSeq} turns · <When ms={scene.lastUsedAt} />
                  {scene.current ? ' · current' : ''}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <section class="reader-pane" aria-label="scene timeline">
        {chosen ? <Timeline agent={agent} sceneId={chosen} refresh={refresh} /> : null}
      </section>
    </div>
  );
}

/**
 * A scene's name as people read it: a scene its host did not name carries the API's default
 * name `session:<id>`, shown as "Unnamed scene" with the start of its id.
 */
function sceneTitle(scene: Pick<Scene, 'id' | 'name'>): string {
  return scene.name === `session:${scene.id}` ? `Unnamed scene ${scene.id.slice(0, 12)}` : scene.name;
}
