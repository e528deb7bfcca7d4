// The `hedgehop/testing` subpath: stand-ins for the pluggable parts, for users' own tests.
export { MockLanguageModel } from './llm/mock-language-model.js';
export type { MockReply, MockScript } from './llm/mock-language-model.js';
export { MockSummarizer } from './llm/mock-summarizer.js';
export type { SummarizerOperation } from './llm/mock-summarizer.js';
export { MockEmbedder } from './llm/mock-embedder.js';
