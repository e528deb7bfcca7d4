import { HedgehopError } from '../core/errors.js';
import type {
  ProfileDistillation,
  ProfileSample,
  SummarizeContext,
  Summarizer,
  TopicForGrouping,
  TopicGroup,
  TurnUtterance,
} from './types.js';

// Placeholder while issue 6 is in progress: replaced by the real extractive summariser.
const notYet = (): never => {
  throw new HedgehopError('LLM_FAILED', 'offline summarizer not built yet');
};

export class OfflineSummarizer implements Summarizer {
  readonly specificationVersion = 'v1' as const;
  readonly id = 'offline';
  summarize(_text: string, _maxChars: number, _context?: SummarizeContext): Promise<string> {
    return Promise.resolve(notYet());
  }
  verifyMatch(_query: string, _summary: string): Promise<{ match: boolean; confidence: number }> {
    return Promise.resolve(notYet());
  }
  distillKeywords(_utterances: readonly TurnUtterance[]): Promise<string[]> {
    return Promise.resolve(notYet());
  }
  groupTopics(
    _topics: readonly TopicForGrouping[],
    _options: { readonly target: number },
  ): Promise<TopicGroup[]> {
    return Promise.resolve(notYet());
  }
  distillProfile(_samples: readonly ProfileSample[]): Promise<ProfileDistillation> {
    return Promise.resolve(notYet());
  }
}
