import { describe, expect, it } from 'vitest';
import { nodeScores } from './radial-service.js';

describe('navigation: scores per node', () => {
  it("shows a node's best part's confidence and ranks it by all its parts together", () => {
    const byNode = nodeScores([
      // One node whose label and context both hold the question's words …
      { ref: 'both', confidence: 0.6, score: 0.5 },
      { ref: 'both', confidence: 0.7, score: 0.6 },
      // … and one whose context alone holds them a little more strongly.
      { ref: 'context', confidence: 0.7, score: 1 },
    ]);
    expect(byNode.get('both')).toEqual({ confidence: 0.7, score: 1.1 });
    expect(byNode.get('context')).toEqual({ confidence: 0.7, score: 1 });
  });

  it('never lets a part lower a node', () => {
    const byNode = nodeScores([
      { ref: 'n', confidence: 0.4, score: 0.8 },
      { ref: 'n', confidence: 0, score: -0.2 },
    ]);
    expect(byNode.get('n')).toEqual({ confidence: 0.4, score: 0.8 });
  });
});
