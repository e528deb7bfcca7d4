// Writes through one hedgehop write path in a loop until killed, printing `ack <id>` once each
// write has resolved (is acknowledged). With `wal` as 5th argument each ack also carries the WAL's
// size at that moment, so a test can cut the WAL past the last acknowledged commit.
// The built package is imported from dist/ (or $HEDGEHOP_DIST). <path> may be a postgres:// URL;
// `compact` then writes its SQLite copies into $HEDGEHOP_COMPACT_DIR (default: the temp folder).
// Args: <path> <radial|turn|knowledge|memory-server|compact|dream> <full|normal> <prefix> [wal]
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const dist = process.env.HEDGEHOP_DIST ?? new URL('../../../dist/', import.meta.url).pathname;
const { openMemory } = await import(`${dist}/src/index.js`);

const [path, kind, durability, prefix, walFlag] = process.argv.slice(2);
const db = await openMemory(path, { durability });
const agent = db.primary();
const walSize = () => {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
};
const ack = (id) => process.stdout.write(walFlag === 'wal' ? `ack ${id} ${walSize()}\n` : `ack ${id}\n`);
const text = (id, n) => `${id} ${'verbatim payload of the record, '.repeat(n)}end`;

const writers = {
  async radial(i) {
    const id = `${prefix}-task-${i}`;
    await agent.radial.completeTask({
      lineId: 'crash',
      taskLabel: id,
      fullContext: text(id, 40),
      conversationSummary: `summary of ${id}`,
      todos: [`todo of ${id}`],
    });
    ack(id);
  },
  async turn(i) {
    const id = `${prefix}-turn-${i}`;
    // The first turn of a child resumes whatever turn a killed predecessor left open.
    await agent.search(i > 0 && i % 7 === 0 ? { newScene: true } : {});
    await agent.appendArchive({
      kind: 'event',
      eventType: 'tool_call',
      content: `${id}-call`,
      createdAt: Date.now(),
    });
    ack(`${id}-call`);
    await agent.appendArchive({
      kind: 'utterance',
      role: 'agent',
      content: text(`${id}-said`, 5),
      createdAt: Date.now(),
    });
    ack(`${id}-said`);
    await agent.update({ input: `${id}-input`, output: `${id}-output`, createdAt: Date.now() });
    ack(`${id}-input`);
  },
  async knowledge(i) {
    const id = `${prefix}-batch-${i}`;
    const nodes = Array.from({ length: 20 }, (_, j) => ({
      title: `${id}-node-${j}`,
      type: 'thing',
      content: text(`${id}-${j}`, 3),
    }));
    const edges = nodes
      .slice(1)
      .map((node, j) => ({ kind: 'related', members: [nodes[j].title, node.title] }));
    await db.knowledge.import({ graph: 'crash', nodes, edges }, { chunkSize: 7 });
    for (const node of nodes) ack(node.title);
  },
  async 'memory-server'(i) {
    const id = `${prefix}-entity-${i}`;
    const memory = db.knowledge.memoryServer({ graph: 'crash-memory' });
    await memory.createEntities([{ name: id, entityType: 'person', observations: [text(id, 2)] }]);
    ack(id);
  },
  async compact(i) {
    const id = `${prefix}-agent-${i}`;
    await db.agent(id);
    ack(id);
    if (i % 5 === 4) {
      const base = /^postgres(ql)?:\/\//.test(path)
        ? join(process.env.HEDGEHOP_COMPACT_DIR ?? tmpdir(), 'memory.db')
        : path;
      const target = `${base}.compact-${prefix}-${i}`;
      await db.compactTo(target);
      process.stdout.write(`compacted ${target} ${id}\n`);
    }
  },
  async dream(i) {
    await writers.turn(i);
    if (i % 4 === 3) {
      await agent.dream();
      process.stdout.write(`dreamt ${i}\n`);
    }
  },
};

const write = writers[kind];
if (!write) throw new Error(`unknown write path ${kind}`);
if (kind === 'radial')
  await agent.radial.getOrCreateLine('crash', 'Crash line', 'Tasks written until SIGKILL');
console.log('open');
for (let i = 0; ; i++) await write(i);
