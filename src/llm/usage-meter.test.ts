import { describe, expect, it } from 'vitest';
import { UsageMeter } from './usage-meter.js';

describe('UsageMeter', () => {
  it('adds calls, failures and tokens per operation and in total', () => {
    const meter = new UsageMeter();
    meter.recordCall('summarize', { inputTokens: 100, outputTokens: 20 });
    meter.recordCall('summarize', { inputTokens: 50, outputTokens: 10 });
    meter.recordFailure('summarize', { inputTokens: 40, outputTokens: 5 });
    meter.recordFailure('embed');
    expect(meter.get('summarize')).toEqual({ calls: 3, failures: 1, inputTokens: 190, outputTokens: 35 });
    expect(meter.get('never')).toEqual({ calls: 0, failures: 0, inputTokens: 0, outputTokens: 0 });
    expect(Object.keys(meter.snapshot())).toEqual(['embed', 'summarize']);
    expect(meter.total()).toEqual({ calls: 4, failures: 2, inputTokens: 190, outputTokens: 35 });
    meter.reset();
    expect(meter.snapshot()).toEqual({});
  });
});
