// One of several processes writing the same file at once (mode shared): memory-server entities,
// profile preferences (a read-modify-write) and radial tasks on one shared line. Prints
// `ack <kind> <id>` per acknowledged write, `busy <kind>` per write refused with BUSY, then `done`.
// Args: <path> <name> <iterations>
const dist = process.env.HEDGEHOP_DIST ?? new URL('../../../dist/', import.meta.url).pathname;
const { openMemory, HedgehopError } = await import(`${dist}/src/index.js`);

const [path, name, iterationsText] = process.argv.slice(2);
const iterations = Number(iterationsText);
const db = await openMemory(path, { busyTimeoutMs: 10_000 });
const agent = db.primary();
const memory = db.knowledge.memoryServer({ graph: 'shared' });
await agent.radial.getOrCreateLine('shared', 'Shared line', 'Written by several processes at once');
console.log('open');

async function attempt(kind, id, fn) {
  try {
    await fn();
    console.log(`ack ${kind} ${id}`);
  } catch (error) {
    if (HedgehopError.isInstance(error) && error.code === 'BUSY') console.log(`busy ${kind}`);
    else throw error;
  }
}

for (let i = 0; i < iterations; i++) {
  const id = `${name}-${i}`;
  await attempt('entity', id, () =>
    memory.createEntities([{ name: id, entityType: 'writer', observations: [`written by ${name}`] }]),
  );
  await attempt('preference', id, () => agent.updateProfile({ preferences: { [id]: 'set' } }));
  await attempt('task', id, () =>
    agent.radial.completeTask({
      lineId: 'shared',
      taskLabel: id,
      fullContext: `context of ${id}`,
      conversationSummary: `task ${id}`,
    }),
  );
}
await db.close();
console.log('done');
