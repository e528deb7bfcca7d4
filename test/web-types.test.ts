import { describe, expect, expectTypeOf, it } from 'vitest';
import { DETAIL_LEVEL_NAMES, type DetailLevelName, type SummaryLevelName } from '../src/core/model/levels.js';
import type { RadialLine } from '../src/core/model/radial.js';
import type { KnowledgeEdge, KnowledgeGraphInfo, KnowledgeNode } from '../src/core/model/knowledge.js';
import type { ArchiveRecord, PlanNode } from '../src/core/model/conversation.js';
import type { RecallHit } from '../src/core/model/recall.js';
import type { EngramGraph } from '../src/core/model/engram.js';
import type { DreamReport, DreamStageReport } from '../src/core/model/dream.js';
import { LEVELS, type LevelName } from '../src/web/types.js';
import type * as Web from '../src/web/types.js';

/**
 * The web UI mirrors the shapes it reads from the HTTP API (it is bundled apart and cannot import
 * the library). These checks fail to type-check (`npm run typecheck`) when a mirror drifts from
 * core/model: every field the UI reads must exist on the model's type with a compatible type.
 */
type Reads<ModelType, WebType> = Json<ModelType> extends WebType ? true : false;

/** A value as JSON carries it: a field whose value may be `undefined` is left out (optional). */
type Json<T> = T extends readonly (infer Item)[]
  ? readonly Json<Item>[]
  : T extends object
    ? { readonly [K in keyof T as undefined extends T[K] ? never : K]: Json<T[K]> } & {
        readonly [K in keyof T as undefined extends T[K] ? K : never]?: Json<Exclude<T[K], undefined>>;
      }
    : T;

describe('web UI types match core/model', () => {
  it('level names', () => {
    expect(LEVELS).toEqual(DETAIL_LEVEL_NAMES);
    expectTypeOf<LevelName>().toEqualTypeOf<DetailLevelName>();
    expectTypeOf<keyof Web.RadialNode['summaries']>().toEqualTypeOf<SummaryLevelName>();
  });

  it('records the UI reads', () => {
    expectTypeOf<Reads<RadialLine, Omit<Web.RadialLine, 'nodeCount'>>>().toEqualTypeOf<true>();
    expectTypeOf<Reads<KnowledgeGraphInfo, Web.KnowledgeGraphInfo>>().toEqualTypeOf<true>();
    expectTypeOf<Reads<KnowledgeNode, Web.KnowledgeNode>>().toEqualTypeOf<true>();
    expectTypeOf<Reads<KnowledgeEdge, Web.KnowledgeEdge>>().toEqualTypeOf<true>();
    expectTypeOf<Reads<ArchiveRecord, Web.ArchiveRecord>>().toEqualTypeOf<true>();
    expectTypeOf<Reads<PlanNode, Web.PlanNode>>().toEqualTypeOf<true>();
    expectTypeOf<Reads<RecallHit, Web.RecallHit>>().toEqualTypeOf<true>();
    expectTypeOf<Reads<EngramGraph, Web.EngramGraph>>().toEqualTypeOf<true>();
    expectTypeOf<Reads<DreamStageReport, Web.DreamStage>>().toEqualTypeOf<true>();
    expectTypeOf<Reads<DreamReport, Web.DreamReport>>().toEqualTypeOf<true>();
  });
});
