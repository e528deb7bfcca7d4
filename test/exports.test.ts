import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The public surface is named export by export (CONVENTIONS.md §8); this pins it, so that any
// addition or removal is a deliberate change to this list.
describe('public exports', () => {
  it('hedgehop exports exactly these names', async () => {
    const names = Object.keys(await import('../src/index.js')).sort();
    expect(names).toEqual([
      'Agent',
      'CONVERSATION_LIMITS',
      'ContextWindowManager',
      'HedgehopError',
      'INDEX_LAYERS',
      'KNOWLEDGE_EDGE_KINDS',
      'KnowledgeStore',
      'LEVELS',
      'LanguageModelError',
      'LoadResult',
      'MemoryDB',
      'MemoryServerGraph',
      'ModelSummarizer',
      'NavigationSession',
      'OfflineSummarizer',
      'OpenAICompatibleModel',
      'PRIMARY_AGENT',
      'RadialMemory',
      'StepNavigator',
      'UsageMeter',
      'countTokens',
      'createOpenAICompatible',
      'createOpenAICompatibleEmbedder',
      'dumpLines',
      'exportDump',
      'exportHedgehog',
      'exportMemoryServerJsonl',
      'importDump',
      'importHedgehog',
      'importMemoryServerJsonl',
      'levelAtDistance',
      'openMemory',
      'recoverMemory',
    ]);
  });

  it('the subpaths export exactly these names', async () => {
    expect(Object.keys(await import('../src/testing.js')).sort()).toEqual([
      'MockEmbedder',
      'MockLanguageModel',
      'MockSummarizer',
    ]);
    expect(Object.keys(await import('../src/mcp/index.js')).sort()).toEqual([
      'ORIGIN_URI',
      'createMcpHttpHandler',
      'createMcpServer',
      'serveStdio',
    ]);
    const http = Object.keys(await import('../src/http/index.js')).sort();
    expect(http).toContain('createHttpApp');
    expect(http).toContain('startServer');
  });

  it('package.json maps each subpath to built files', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, { import?: string }>;
      bin: Record<string, string>;
    };
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './http', './mcp', './package.json', './testing']);
    expect(pkg.bin.hedgehop).toBe('dist/src/cli/main.js');
  });
});
