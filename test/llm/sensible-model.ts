/**
 * A scripted but sensible "model" for the scripted server: it reads hedgehop's prompts and
 * answers them with the offline algorithms, the way a decent model would (and a little
 * sloppily: it overshoots summary budgets and wraps some replies in code fences, which the
 * client must cope with).
 */
import { extractiveSummary } from '../../src/llm/extractive-summary.js';
import { extractKeywords } from '../../src/llm/keyword-extraction.js';
import { heuristicProfile } from '../../src/llm/profile-heuristics.js';
import { termOverlap } from '../../src/llm/term-overlap.js';
import { groupAdjacentTopics } from '../../src/llm/topic-grouping.js';
import { chatReply, type RecordedRequest, type ScriptedReply } from './scripted-openai-server.js';

interface Message {
  readonly role: string;
  readonly content: string;
}

/** Answers one chat-completions request in the spirit of the prompt. */
export function sensibleReply(request: RecordedRequest): ScriptedReply {
  const messages = request.body['messages'] as Message[];
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const user = messages.find((m) => m.role === 'user')?.content ?? '';
  return { json: chatReply(answer(system, user)) };
}

function answer(system: string, user: string): string {
  if (system.includes('{"summary"')) return summarize(system, user);
  if (system.includes('"confidence"')) {
    const [, query = '', summary = ''] = /^Query: (.*)\n\nStored summary:\n([\s\S]*)$/u.exec(user) ?? [];
    return JSON.stringify(termOverlap(query, summary));
  }
  if (system.includes('{"keywords"')) {
    return JSON.stringify({ keywords: extractKeywords([user.replace(/^Extract keywords from:\n/u, '')]) });
  }
  if (system.includes('{"groups"')) return groups(system, user);
  if (system.includes('"per_node"')) return profile(user);
  return 'I do not understand.';
}

function summarize(system: string, user: string): string {
  const budget = Number(/at most (\d+) characters/u.exec(system)?.[1] ?? 200);
  const hint = /The text is about: "(.*)"\./u.exec(system)?.[1];
  const text = /-----\n([\s\S]*)\n-----/u.exec(user)?.[1] ?? '';
  const level = system.includes('single line') ? 'brief' : 'detailed';
  // A real model often writes a little more than asked: the client must cut it back.
  const summary = extractiveSummary(text, Math.ceil(budget * 1.3), { hint, level });
  return '```json\n' + JSON.stringify({ summary }) + '\n```';
}

function groups(system: string, user: string): string {
  const target = Number(/at most (\d+) topics/u.exec(system)?.[1] ?? 1);
  const topics = [...user.matchAll(/^\d+\. id=(".*?") keywords=(\[.*\])$/gmu)].map((m) => ({
    id: JSON.parse(m[1]!) as string,
    keywords: JSON.parse(m[2]!) as string[],
  }));
  const found = groupAdjacentTopics(topics, target);
  return JSON.stringify({
    groups: found.map((g) => ({ topic_ids: g.topicIds, merged_summary: g.mergedSummary })),
  });
}

function profile(user: string): string {
  const samples = [...user.matchAll(/^- id=(".*?") importance=([\d.]+) keywords=(\[.*\])$/gmu)].map((m) => ({
    id: JSON.parse(m[1]!) as string,
    importance: Number(m[2]),
    keywords: JSON.parse(m[3]!) as string[],
  }));
  const result = heuristicProfile(samples);
  return JSON.stringify({
    emotion: result.emotion,
    mbti: result.mbti,
    personality: result.personality,
    per_node: result.perNode,
  });
}
