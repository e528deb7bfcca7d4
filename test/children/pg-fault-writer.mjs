// Writes to a memory (a file or a postgres:// URL) through three public write paths in turn (a
// radial task on line `faults`, an archive record in the open turn, a whole turn closed with
// `update`) and prints each acknowledged write as `ack <json>` holding every byte it wrote, so
// the parent can check it byte for byte. Modes:
//   kill <prefix> [first]         write forever (the parent SIGKILLs it), starting the cycle of
//                                 paths at `first` (0 node, 1 record, 2 turn)
//   survive <prefix>              write forever; a HedgehopError is printed as `error <json>` and the
//                                 loop goes on (a restarted server); any other error exits 1
//   shared <prefix> <n> <startAt> from the wall-clock time startAt, n radial tasks on line `shared`
//                                 and n archive records into the open turn (never closed), then `done`
// Args: <path> <mode> <prefix> [n] [startAt]
import { randomBytes } from 'node:crypto';

const dist = process.env.HEDGEHOP_DIST ?? new URL('../../dist/', import.meta.url).pathname;
const { openMemory, HedgehopError } = await import(`${dist}/src/index.js`);

const [path, mode, prefix, countText, startAtText] = process.argv.slice(2);
const db = await openMemory(path, { busyTimeoutMs: 20_000 });
const agent = db.primary();
const ack = (write) => process.stdout.write(`ack ${JSON.stringify(write)}\n`);
// Multi-byte, quotes, a backslash, a tab, a newline and random bytes: a write is unique and exact.
const text = (id) =>
  `${id} «verbatim» 日本語 🦔 "quoted" \\ back\tslash\nline two ${randomBytes(12).toString('base64')}`;

async function node(id, lineId) {
  const full = text(id);
  const written = await agent.radial.completeTask({
    lineId,
    taskLabel: id,
    fullContext: full,
    conversationSummary: `summary of ${id}`,
  });
  ack({ kind: 'node', id: written.id, label: id, full });
}

async function record(id) {
  const content = text(id);
  const slot = await agent.appendArchive({
    kind: 'event',
    eventType: 'tool_call',
    content,
    createdAt: Date.now(),
  });
  ack({ kind: 'record', id: slot.id, topicId: slot.topicId, seq: slot.seq, content });
}

async function turn(id) {
  await agent.search();
  const input = text(`${id}-in`);
  const output = text(`${id}-out`);
  const result = await agent.update({ input, output, createdAt: Date.now() });
  ack({ kind: 'turn', topicId: result.topic.id, input, output });
}

async function mixed(i) {
  const id = `${prefix}-${i}`;
  if (i % 3 === 0) await node(id, 'faults');
  else if (i % 3 === 1) {
    await agent.search(); // opens a turn, or resumes the one a killed predecessor left open
    await record(id);
  } else await turn(id);
}

if (mode === 'shared') {
  await agent.radial.getOrCreateLine('shared', 'Shared', 'Written by several processes at once');
  const { turnId } = await agent.search();
  console.log(`open ${turnId}`);
  const wait = Number(startAtText) - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  for (let i = 0; i < Number(countText); i++) {
    await node(`${prefix}-node-${i}`, 'shared');
    await record(`${prefix}-record-${i}`);
  }
  await db.close();
  console.log('done');
} else {
  await agent.radial.getOrCreateLine('faults', 'Faults', 'Tasks written until the process dies');
  console.log('open');
  for (let i = Number(countText ?? 0); ; i++) {
    const started = Date.now();
    try {
      await mixed(i);
    } catch (error) {
      if (mode !== 'survive') throw error;
      if (!HedgehopError.isInstance(error)) {
        process.stdout.write(
          `raw ${JSON.stringify({ name: error?.name, message: String(error?.message) })}\n`,
        );
        process.exit(1);
      }
      const ms = Date.now() - started;
      process.stdout.write(`error ${JSON.stringify({ code: error.code, message: error.message, ms, i })}\n`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
