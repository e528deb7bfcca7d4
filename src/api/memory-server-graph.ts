import { z } from 'zod';
import { parseInput } from '../core/validate.js';
import type { KnowledgeGraphs } from '../memory/knowledge/knowledge-graphs.js';
import { MemoryServerMapping } from '../memory/knowledge/memory-server-mapping.js';
import {
  DEFAULT_MEMORY_SERVER_GRAPH,
  type CreateRelationsResult,
  type MemoryServerEntity,
  type MemoryServerImportReport,
  type MemoryServerRelation,
  type MemoryServerSnapshot,
  entitySchema,
  relationSchema,
  importOptionsSchema,
  KNOWLEDGE_LIMITS,
  labelSchema,
  type KnowledgeImportOptions,
} from '../core/model/knowledge.js';
import type { MemoryStore } from '../store/memory-store.js';

/** Which graph the memory-server tools work on. */
export interface MemoryServerOptions {
  /** The graph's label (default `memory`); it is created on the first write. */
  readonly graph?: string | undefined;
}

/** Options of {@link importMemoryServerJsonl}. */
export interface MemoryServerImportOptions extends MemoryServerOptions, KnowledgeImportOptions {}

const optionsSchema = z.strictObject({ graph: labelSchema.default(DEFAULT_MEMORY_SERVER_GRAPH) });
const nameListSchema = z.array(z.string().max(KNOWLEDGE_LIMITS.titleChars));
const additionsSchema = z.array(
  z.object({
    entityName: z.string().max(KNOWLEDGE_LIMITS.titleChars),
    contents: z.array(z.string().max(KNOWLEDGE_LIMITS.observationChars)),
  }),
);
const deletionsSchema = z.array(
  z.object({
    entityName: z.string().max(KNOWLEDGE_LIMITS.titleChars),
    observations: z.array(z.string().max(KNOWLEDGE_LIMITS.observationChars)),
  }),
);
const relationRefsSchema = z.array(z.object({ from: z.string(), to: z.string(), relationType: z.string() }));
const searchSchema = z
  .string()
  .max(KNOWLEDGE_LIMITS.queryChars, `at most ${KNOWLEDGE_LIMITS.queryChars} characters`);
const searchOptionsSchema = z.strictObject({ limit: z.number().int().min(1).optional() });

/**
 * The nine tools of the MCP reference memory server (`@modelcontextprotocol/server-memory`)
 * over one knowledge graph, with its argument shapes and results, so that hedgehop can stand in
 * for it: entities are nodes (`name` = title, `entityType` = type, observations), relations are
 * directed edges of kind `custom` labelled with the `relationType`. Unlike that server, every
 * write is one SQLite transaction (no lost updates between processes, nothing half-written on a
 * crash) and `searchNodes` ranks its results.
 *
 * @example
 * ```ts
 * const memory = db.knowledge.memoryServer();
 * await memory.createEntities([{ name: 'Ada', entityType: 'person', observations: ['writes Rust'] }]);
 * const { skipped } = await memory.createRelations([{ from: 'Ada', to: 'Acme', relationType: 'works at' }]);
 * // skipped: [{ from: 'Ada', to: 'Acme', relationType: 'works at', missingEntities: ['Acme'] }]
 * const { entities } = await memory.searchNodes('rust');
 * ```
 */
export class MemoryServerGraph {
  readonly #store: MemoryStore;
  readonly #mapping: MemoryServerMapping;

  /** @internal Use `db.knowledge.memoryServer()`. */
  constructor(store: MemoryStore, graphs: KnowledgeGraphs, options: MemoryServerOptions) {
    this.#store = store;
    const { graph } = parseInput(optionsSchema, options, 'options');
    this.#mapping = new MemoryServerMapping(graphs, graph);
  }

  /** The label of the graph these tools work on. */
  get graph(): string {
    return this.#mapping.label;
  }

  #assertOpen(what: string): void {
    this.#store.assertOpen(`memoryServer.${what}`);
  }

  /** `create_entities`: creates the entities whose name is new (first of a repeated name wins); returns them. */
  async createEntities(entities: readonly MemoryServerEntity[]): Promise<MemoryServerEntity[]> {
    this.#assertOpen('createEntities');
    return this.#mapping.createEntities(parseInput(z.array(entitySchema), entities, 'entities'));
  }

  /**
   * `create_relations`: stores the relations between existing entities and returns the new ones
   * in `relations`; those naming a missing entity are not stored and listed in `skipped`.
   */
  async createRelations(relations: readonly MemoryServerRelation[]): Promise<CreateRelationsResult> {
    this.#assertOpen('createRelations');
    return this.#mapping.createRelations(parseInput(z.array(relationSchema), relations, 'relations'));
  }

  /** `add_observations`: every entity must exist (else `NOT_FOUND`, nothing written); returns what was new. */
  async addObservations(
    observations: readonly { readonly entityName: string; readonly contents: readonly string[] }[],
  ): Promise<{ entityName: string; addedObservations: string[] }[]> {
    this.#assertOpen('addObservations');
    return this.#mapping.addObservations(parseInput(additionsSchema, observations, 'observations'));
  }

  /** `delete_entities`: deletes entities and their relations; reports what was not found. */
  async deleteEntities(entityNames: readonly string[]): Promise<{ deleted: string[]; notFound: string[] }> {
    this.#assertOpen('deleteEntities');
    return this.#mapping.deleteEntities(parseInput(nameListSchema, entityNames, 'entityNames'));
  }

  /** `delete_observations`: removes observations; reports how many went and unknown entities. */
  async deleteObservations(
    deletions: readonly { readonly entityName: string; readonly observations: readonly string[] }[],
  ): Promise<{ deletedCount: number; missingEntities: string[] }> {
    this.#assertOpen('deleteObservations');
    return this.#mapping.deleteObservations(parseInput(deletionsSchema, deletions, 'deletions'));
  }

  /** `delete_relations`: deletes the matching relations; reports how many went. */
  async deleteRelations(relations: readonly MemoryServerRelation[]): Promise<{ deletedCount: number }> {
    this.#assertOpen('deleteRelations');
    return this.#mapping.deleteRelations(parseInput(relationRefsSchema, relations, 'relations'));
  }

  /** `read_graph`: every entity and relation, in creation order. */
  async readGraph(): Promise<MemoryServerSnapshot> {
    this.#assertOpen('readGraph');
    return this.#mapping.readGraph();
  }

  /**
   * `search_nodes`: the entities matching `query` (every one the memory server would find, plus
   * word matches from the recall index), best first, with every relation touching one.
   */
  async searchNodes(query: string, options: { readonly limit?: number } = {}): Promise<MemoryServerSnapshot> {
    this.#assertOpen('searchNodes');
    const text = parseInput(searchSchema, query, 'query');
    const { limit } = parseInput(searchOptionsSchema, options, 'options');
    return this.#mapping.searchNodes(text, limit);
  }

  /** `open_nodes`: the named entities that exist, with every relation touching one. */
  async openNodes(names: readonly string[]): Promise<MemoryServerSnapshot> {
    this.#assertOpen('openNodes');
    const checked = parseInput(nameListSchema, names, 'names');
    return this.#mapping.openNodes(checked);
  }

  /**
   * Imports a memory-server JSONL file (default mode `merge`: observations are added to
   * existing entities). A malformed line refuses the whole file, naming the line.
   */
  async importJsonl(text: string, options: KnowledgeImportOptions = {}): Promise<MemoryServerImportReport> {
    this.#assertOpen('importJsonl');
    const checked = parseInput(z.string(), text, 'text');
    const settings = parseInput(importOptionsSchema, options, 'options');
    return this.#mapping.importJsonl(checked, settings);
  }

  /** The graph as a memory-server JSONL file (entities, then relations; '' when empty). */
  async exportJsonl(): Promise<string> {
    this.#assertOpen('exportJsonl');
    return this.#mapping.exportJsonl();
  }
}

function splitOptions(options: MemoryServerImportOptions): {
  graph: MemoryServerOptions;
  rest: KnowledgeImportOptions;
} {
  const { graph, ...rest } = options;
  return { graph: graph === undefined ? {} : { graph }, rest };
}

/** What the JSONL helpers need of a memory: its knowledge store's drop-in view (a `MemoryDB`). */
interface MemoryServerHost {
  readonly knowledge: { memoryServer(options?: MemoryServerOptions): MemoryServerGraph };
}

/**
 * Imports the MCP reference memory server's JSONL file (its `MEMORY_FILE_PATH`) into the graph
 * `options.graph` (default `memory`).
 *
 * @example
 * ```ts
 * const report = await importMemoryServerJsonl(db, readFileSync('memory.jsonl', 'utf8'));
 * console.log(report.created.length, 'entities', report.edgesCreated, 'relations');
 * ```
 */
export async function importMemoryServerJsonl(
  db: MemoryServerHost,
  text: string,
  options: MemoryServerImportOptions = {},
): Promise<MemoryServerImportReport> {
  const { graph, rest } = splitOptions(options);
  return db.knowledge.memoryServer(graph).importJsonl(text, rest);
}

/**
 * Exports a graph (default `memory`) as the MCP reference memory server's JSONL file. Export,
 * import into an empty file and export again gives the same text.
 */
export async function exportMemoryServerJsonl(
  db: MemoryServerHost,
  options: MemoryServerOptions = {},
): Promise<string> {
  return db.knowledge.memoryServer(options).exportJsonl();
}
