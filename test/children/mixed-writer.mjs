// Writes through one public write path until `count` writes are acknowledged (or forever with
// count 0), printing `ack <kind> <key>` after each acknowledged write.
// Args: <path> <kind: radial|turn|knowledge> <prefix> <count>
import { openMemory } from '../../dist/src/index.js';

const [path, kind, prefix, countText] = process.argv.slice(2);
const count = Number(countText);
const db = await openMemory(path, { busyTimeoutMs: 20_000 });
console.log('open');

async function radial(i) {
  const radial = db.primary().radial;
  await radial.getOrCreateLine(`line-${prefix}`, `Line ${prefix}`, `Tasks written by ${prefix}`);
  const node = await radial.completeTask({
    lineId: `line-${prefix}`,
    taskLabel: `${prefix} task ${i}`,
    fullContext: `Full verbatim context of ${prefix} task ${i}.\nIt spans lines and keeps its bytes: ✓ ${i}`,
    conversationSummary: `We finished ${prefix} task number ${i} and recorded what changed.`,
  });
  return node.id;
}

async function turn(i) {
  const agent = await db.agent(`agent-${prefix}`);
  await agent.search();
  await agent.appendArchive({
    kind: 'event',
    eventType: 'tool_call',
    content: `tool ran for ${prefix} ${i}`,
    createdAt: Date.now(),
  });
  const result = await agent.update({
    input: `question ${prefix} ${i}`,
    output: `answer ${prefix} ${i}`,
    createdAt: Date.now(),
  });
  return result.topic.id;
}

async function knowledge(i) {
  const title = `${prefix} fact ${i}`;
  await db.knowledge.import({
    graph: `graph-${prefix}`,
    nodes: [{ title, type: 'fact', content: `content of ${title}` }],
    ...(i > 0
      ? { edges: [{ kind: 'sequence', directed: true, members: [`${prefix} fact ${i - 1}`, title] }] }
      : {}),
  });
  return title;
}

const write = { radial, turn, knowledge }[kind];
for (let i = 0; count === 0 || i < count; i++) {
  const key = await write(i);
  process.stdout.write(`ack ${kind} ${key}\n`);
}
await db.close();
console.log('done');
