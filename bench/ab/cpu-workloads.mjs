// CPU time of fixed workloads on one build, for A/B comparisons of two builds on a busy machine:
//   node bench/ab/cpu-workloads.mjs <build root>/dist <radial|turn|knowledge|recall|dream>
// (run the two builds alternately, several rounds, and compare medians; see docs/benchmarks.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const [dist, workload] = process.argv.slice(2);
const { openMemory } = await import(join(dist, 'src/index.js'));
const { SyntheticCorpus } = await import(join(dist, 'bench/corpus.js'));
const dir = mkdtempSync(join(tmpdir(), 'icount-'));
const db = await openMemory(join(dir, 'm.db'), { durability: 'normal' });
const agent = await db.agent('primary');
const corpus = new SyntheticCorpus(7);
const T = 1_800_000_000_000;
const cpu0 = process.cpuUsage();
if (workload === 'radial') {
  await agent.radial.getOrCreateLine('bench', 'Bench', 'line');
  for (let i = 0; i < 60; i++)
    await agent.radial.completeTask({
      lineId: 'bench',
      taskLabel: `${corpus.sentence(3, 6)} #${i}`,
      fullContext: corpus.text(1500),
      conversationSummary: corpus.text(450),
      todos: [corpus.sentence(4, 8)],
    });
  for (let i = 0; i < 30; i++) await agent.radial.navigate(corpus.sentence(3, 6));
} else if (workload === 'turn') {
  for (let i = 0; i < 60; i++) {
    await agent.search();
    await agent.appendArchive({
      kind: 'utterance',
      role: 'user',
      content: corpus.text(240),
      createdAt: T + i * 10,
    });
    await agent.appendArchive({
      kind: 'utterance',
      role: 'agent',
      content: corpus.text(240),
      createdAt: T + i * 10 + 1,
    });
    await agent.update({
      input: corpus.sentence(5, 9),
      output: corpus.sentence(5, 9),
      createdAt: T + i * 10 + 2,
    });
  }
} else if (workload === 'knowledge') {
  const nodes = Array.from({ length: 1500 }, (_, i) => ({
    title: `node ${i} ${corpus.sentence(1, 2)}`,
    type: 'thing',
    content: corpus.text(120),
  }));
  const edges = Array.from({ length: 3000 }, (_, i) => ({
    kind: 'related',
    members: [nodes[i % 1500].title, nodes[(i * 7 + 1) % 1500].title],
  }));
  await db.knowledge.import({ graph: 'g', nodes, edges });
  for (let i = 0; i < 40; i++) await db.knowledge.search(corpus.sentence(1, 3), { limit: 20 });
} else if (workload === 'recall') {
  for (let s = 0; s < 40; s++) {
    await agent.search({ newScene: true });
    await agent.appendArchiveMany(
      Array.from({ length: 50 }, (_, i) => ({
        kind: 'utterance',
        role: i % 2 ? 'agent' : 'user',
        content: corpus.text(200),
        createdAt: T + s * 100 + i,
      })),
    );
    await agent.update({ createdAt: T + s * 100 + 60, outcome: 'bulk' });
  }
  for (let i = 0; i < 40; i++) await agent.recall(corpus.sentence(4, 8), { budgetTokens: 1000 });
} else if (workload === 'dream') {
  await agent.search({ newScene: true });
  for (let i = 0; i < 50; i++) {
    if (i > 0) await agent.search();
    await agent.appendArchive({
      kind: 'utterance',
      role: 'user',
      content: corpus.text(200),
      createdAt: T + i * 10,
    });
    await agent.update({ input: corpus.sentence(5, 9), output: corpus.text(200), createdAt: T + i * 10 + 2 });
  }
  await agent.dream();
}
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ workload, cpuMs: (cpu.user + cpu.system) / 1000 }));
await db.close();
rmSync(dir, { recursive: true, force: true });
