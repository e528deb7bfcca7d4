import { notFound } from '../../core/errors.js';
import { edgeIdFor, graphIdFor, nodeIdFor } from './ids.js';
import { emptyReport, type ImportSettings, type KnowledgeGraphs } from './knowledge-graphs.js';
import { unionInOrder } from './merge.js';
import {
  formatMemoryServerJsonl,
  parseMemoryServerJsonl,
  type NumberedRelation,
} from './memory-server-jsonl.js';
import type {
  KnowledgeEdge,
  KnowledgeNode,
  MemoryServerEntity,
  MemoryServerRelation,
  MemoryServerSnapshot,
  MemoryServerImportReport,
  CreateRelationsResult,
  SkippedRelation,
} from '../../core/model/knowledge.js';

/** The relation type an edge reads as. */
function relationTypeOf(edge: KnowledgeEdge): string {
  return edge.kind === 'custom' || edge.label.length > 0 ? edge.label : edge.kind;
}

/** An entity read from a node. */
function entityOf(node: KnowledgeNode): MemoryServerEntity {
  const observations =
    node.content.length > 0 ? unionInOrder([node.content], node.observations) : node.observations;
  return { name: node.title, entityType: node.type, observations: [...observations] };
}

/** The relations an edge reads as (one for a two-member edge). */
function relationsOf(
  edge: KnowledgeEdge,
  titleOf: (id: string) => string | undefined,
): MemoryServerRelation[] {
  const relationType = relationTypeOf(edge);
  const members = edge.members;
  if (members.length === 2) {
    // Every relation a memory-server tool writes: one pair, read without building a list of pairs.
    const from = titleOf(members[0] as string);
    const to = titleOf(members[1] as string);
    return from !== undefined && to !== undefined ? [{ from, to, relationType }] : [];
  }
  const pairs: [string, string][] = [];
  if (edge.directed) {
    for (let i = 0; i + 1 < members.length; i++) pairs.push([members[i] as string, members[i + 1] as string]);
  } else {
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) pairs.push([members[i] as string, members[j] as string]);
    }
  }
  const out: MemoryServerRelation[] = [];
  for (const [a, b] of pairs) {
    const from = titleOf(a);
    const to = titleOf(b);
    if (from !== undefined && to !== undefined) out.push({ from, to, relationType });
  }
  return out;
}

const relationKey = (relation: MemoryServerRelation): string =>
  JSON.stringify([relation.from, relation.to, relation.relationType]);

/**
 * Relations, each once, in order. Seen relations are held by their three strings, not by a key
 * joined from them: a search can return thousands of relations, and their titles are the same
 * few string objects (whose hashes are computed once), where a joined key is a new string to
 * build and hash for every relation.
 */
function distinctRelations(relations: readonly MemoryServerRelation[]): MemoryServerRelation[] {
  const seen = new Map<string, Map<string, Set<string>>>();
  return relations.filter((relation) => {
    let byTo = seen.get(relation.from);
    if (byTo === undefined) seen.set(relation.from, (byTo = new Map()));
    let types = byTo.get(relation.to);
    if (types === undefined) byTo.set(relation.to, (types = new Set()));
    if (types.has(relation.relationType)) return false;
    types.add(relation.relationType);
    return true;
  });
}

/** The edge input a relation becomes. */
function edgeInputOf(relation: MemoryServerRelation): {
  kind: 'custom';
  label: string;
  directed: true;
  members: [string, string];
} {
  return {
    kind: 'custom',
    label: relation.relationType,
    directed: true,
    members: [relation.from, relation.to],
  };
}

/** The id of the edge a relation becomes. */
function relationEdgeId(graphId: string, relation: MemoryServerRelation): string {
  return edgeIdFor({
    graphId,
    kind: 'custom',
    label: relation.relationType,
    directed: true,
    members: [nodeIdFor(graphId, relation.from), nodeIdFor(graphId, relation.to)],
  });
}

/** Import settings of the tool calls: one transaction, existing nodes left alone. */
const TOOL_IMPORT: ImportSettings = { mode: 'skip', chunkSize: 1_000_000 };

/**
 * The nine tools of the MCP reference memory server over one knowledge graph (created on the
 * first write). Input is already validated. Every write is one transaction, so concurrent
 * writers (other processes included) never lose each other's updates.
 */
export class MemoryServerMapping {
  readonly #graphs: KnowledgeGraphs;
  readonly #label: string;

  constructor(graphs: KnowledgeGraphs, label: string) {
    this.#graphs = graphs;
    this.#label = label;
  }

  /** The graph's label. */
  get label(): string {
    return this.#label;
  }

  async #graphId(graphs = this.#graphs): Promise<string | undefined> {
    return graphs.idByLabel(this.#label);
  }

  async #nodesNamed(graphId: string, names: readonly string[]): Promise<Map<string, KnowledgeNode>> {
    const nodes = await this.#graphs.queryNodes({ graphId, titles: names });
    return new Map(nodes.map((node) => [node.title, node]));
  }

  /** `create_entities`: creates entities whose name is new; returns those created, as stored. */
  async createEntities(entities: readonly MemoryServerEntity[]): Promise<MemoryServerEntity[]> {
    const firsts = new Map<string, MemoryServerEntity>();
    for (const entity of entities) if (!firsts.has(entity.name)) firsts.set(entity.name, entity);
    if (firsts.size === 0) return [];
    const nodes = [...firsts.values()].map((entity) => ({
      title: entity.name,
      type: entity.entityType,
      observations: entity.observations,
    }));
    const report = await this.#graphs.import({ graph: this.#label, nodes }, TOOL_IMPORT);
    const created = new Set(report.created);
    // What was stored, not what was asked: a new node holds its input with each observation
    // once (the import's rule for new nodes), so it is not read back in another transaction.
    return [...firsts.values()]
      .filter((entity) => created.has(nodeIdFor(report.graphId, entity.name)))
      .map((entity) => ({
        name: entity.name,
        entityType: entity.entityType,
        observations: unionInOrder(entity.observations),
      }));
  }

  /**
   * `create_relations`: stores the relations whose `from` and `to` both name an entity and
   * reports the others in `skipped` (an edge needs its two nodes; the batch is never refused for
   * them); `relations` holds the ones that were new.
   */
  async createRelations(relations: readonly MemoryServerRelation[]): Promise<CreateRelationsResult> {
    if (relations.length === 0) return { relations: [], skipped: [] };
    const graphId = await this.#graphId();
    const names = unionInOrder(relations.flatMap((relation) => [relation.from, relation.to]));
    const held =
      graphId === undefined ? new Map<string, KnowledgeNode>() : await this.#nodesNamed(graphId, names);
    const skipped: SkippedRelation[] = [];
    const valid: MemoryServerRelation[] = [];
    for (const relation of distinctRelations(relations)) {
      const missing = [relation.from, relation.to].filter((name) => !held.has(name));
      if (missing.length === 0) valid.push(relation);
      else skipped.push({ ...relation, missingEntities: unionInOrder(missing) });
    }
    if (valid.length === 0) return { relations: [], skipped };
    const { report, createdEdges } = await this.#graphs.importDetailed(
      { graph: this.#label, edges: valid.map(edgeInputOf) },
      TOOL_IMPORT,
    );
    const created = new Set(createdEdges);
    return {
      relations: valid.filter((relation) => created.has(relationEdgeId(report.graphId, relation))),
      skipped,
    };
  }

  /**
   * `add_observations`: every entity must exist (else `NOT_FOUND`, nothing written); returns,
   * per entity, the observations that were new.
   */
  async addObservations(
    additions: readonly { readonly entityName: string; readonly contents: readonly string[] }[],
  ): Promise<{ entityName: string; addedObservations: string[] }[]> {
    if (additions.length === 0) return [];
    const graphId = await this.#graphId();
    const names = additions.map((addition) => addition.entityName);
    const held =
      graphId === undefined ? new Map<string, KnowledgeNode>() : await this.#nodesNamed(graphId, names);
    const missing = names.find((name) => !held.has(name));
    if (missing !== undefined || graphId === undefined) {
      throw notFound(`Entity with name ${missing ?? names[0] ?? ''} not found`);
    }
    const results = await this.#graphs.addObservations(
      additions.map((addition) => ({
        nodeId: nodeIdFor(graphId, addition.entityName),
        observations: addition.contents,
      })),
    );
    return results.map((result, index) => ({
      entityName: additions[index]?.entityName ?? '',
      addedObservations: [...result.added],
    }));
  }

  /** `delete_entities`: deletes entities and every relation they take part in. */
  async deleteEntities(names: readonly string[]): Promise<{ deleted: string[]; notFound: string[] }> {
    const graphId = await this.#graphId();
    if (graphId === undefined) return { deleted: [], notFound: [...names] };
    const ids = new Map(names.map((name) => [nodeIdFor(graphId, name), name]));
    const report = await this.#graphs.deleteNodes([...ids.keys()]);
    const deleted = new Set(report.deleted);
    return {
      deleted: names.filter((name) => deleted.has(nodeIdFor(graphId, name))),
      notFound: names.filter((name) => !deleted.has(nodeIdFor(graphId, name))),
    };
  }

  /** `delete_observations`: removes the given observations; unknown entities are reported. */
  async deleteObservations(
    deletions: readonly { readonly entityName: string; readonly observations: readonly string[] }[],
  ): Promise<{ deletedCount: number; missingEntities: string[] }> {
    const graphId = await this.#graphId();
    if (graphId === undefined) {
      return { deletedCount: 0, missingEntities: deletions.map((deletion) => deletion.entityName) };
    }
    const report = await this.#graphs.deleteObservations(
      deletions.map((deletion) => ({
        nodeId: nodeIdFor(graphId, deletion.entityName),
        observations: deletion.observations,
      })),
    );
    const missing = new Set(report.notFound);
    return {
      deletedCount: report.deleted,
      missingEntities: deletions
        .filter((deletion) => missing.has(nodeIdFor(graphId, deletion.entityName)))
        .map((deletion) => deletion.entityName),
    };
  }

  /** `delete_relations`: deletes two-member edges that read as one of the given relations. */
  async deleteRelations(relations: readonly MemoryServerRelation[]): Promise<{ deletedCount: number }> {
    const graphId = await this.#graphId();
    if (graphId === undefined || relations.length === 0) return { deletedCount: 0 };
    const doomed = new Set<string>();
    for (const relation of relations) {
      const from = nodeIdFor(graphId, relation.from);
      const to = nodeIdFor(graphId, relation.to);
      const titleOf = (id: string): string | undefined =>
        id === from ? relation.from : id === to ? relation.to : undefined;
      for (const edge of await this.#graphs.edgesBetween(from, to)) {
        if (edge.members.length !== 2) continue;
        const key = relationKey(relation);
        if (relationsOf(edge, titleOf).some((candidate) => relationKey(candidate) === key))
          doomed.add(edge.id);
      }
    }
    return { deletedCount: (await this.#graphs.deleteEdges([...doomed])).deleted.length };
  }

  /** `read_graph`: every entity and relation, in the order they were created. */
  readGraph(): Promise<MemoryServerSnapshot> {
    return this.#graphs.snapshot('memoryServer.readGraph', async (graphs) => {
      const graphId = await this.#graphId(graphs);
      if (graphId === undefined) return { entities: [], relations: [] };
      const graph = await graphs.get(graphId);
      if (!graph) return { entities: [], relations: [] };
      const titleOf = titleLookup(graph.nodes);
      return {
        entities: graph.nodes.map(entityOf),
        relations: distinctRelations(graph.edges.flatMap((edge) => relationsOf(edge, titleOf))),
      };
    });
  }

  /**
   * `search_nodes`: entities holding the query (name, type, observations; case-insensitive),
   * and those the recall index matches word by word, best first; with every relation that
   * touches one of them.
   */
  searchNodes(query: string, limit?: number): Promise<MemoryServerSnapshot> {
    return this.#graphs.snapshot('memoryServer.searchNodes', async (graphs) => {
      const graphId = await this.#graphId(graphs);
      if (graphId === undefined) return { entities: [], relations: [] };
      const hits = await graphs.search(query, { graphId, limit });
      return withRelations(
        graphs,
        hits.map((hit) => hit.node),
      );
    });
  }

  /** `open_nodes`: the named entities (those that exist), with every relation touching one. */
  openNodes(names: readonly string[]): Promise<MemoryServerSnapshot> {
    return this.#graphs.snapshot('memoryServer.openNodes', async (graphs) => {
      const graphId = await this.#graphId(graphs);
      if (graphId === undefined || names.length === 0) return { entities: [], relations: [] };
      return withRelations(graphs, await graphs.queryNodes({ graphId, titles: names }));
    });
  }

  /**
   * Imports a memory-server JSONL file into the graph (see {@link parseMemoryServerJsonl}):
   * entities become nodes (by `settings.mode` when they exist), relations become edges.
   * Relations naming an entity found neither in the file nor in the graph are reported in
   * `skippedRelations` and not imported (older memory servers wrote such dangling relations).
   */
  async importJsonl(text: string, settings: ImportSettings): Promise<MemoryServerImportReport> {
    const parsed = parseMemoryServerJsonl(text);
    const { kept, skipped } = await this.#splitDangling(parsed.entities, parsed.relations);
    const nodes = parsed.entities.map((entity) => ({
      title: entity.name,
      type: entity.entityType,
      observations: entity.observations,
    }));
    const edges = distinctRelations(kept).map(edgeInputOf);
    const base =
      nodes.length + edges.length === 0
        ? emptyReport((await this.#graphId()) ?? graphIdFor(this.#label))
        : await this.#graphs.import({ graph: this.#label, nodes, edges }, settings);
    return {
      ...base,
      entities: parsed.entityLines,
      relations: parsed.relationLines,
      ignoredLines: parsed.ignoredLines,
      skippedRelations: skipped,
    };
  }

  async #splitDangling(
    entities: readonly MemoryServerEntity[],
    relations: readonly NumberedRelation[],
  ): Promise<{ kept: NumberedRelation[]; skipped: string[] }> {
    const inFile = new Set(entities.map((entity) => entity.name));
    const outside = unionInOrder(
      relations.flatMap((r) => [r.from, r.to]).filter((name) => !inFile.has(name)),
    );
    const graphId = await this.#graphId();
    const inGraph =
      graphId === undefined || outside.length === 0
        ? new Set<string>()
        : new Set((await this.#nodesNamed(graphId, outside)).keys());
    const kept: NumberedRelation[] = [];
    const skipped: string[] = [];
    for (const relation of relations) {
      const missing = [relation.from, relation.to].find((name) => !inFile.has(name) && !inGraph.has(name));
      if (missing === undefined) kept.push(relation);
      else
        skipped.push(
          `line ${relation.line}: relation '${relation.from}' -> '${relation.to}' names no entity '${missing}'`,
        );
    }
    return { kept, skipped };
  }

  /** The graph as a memory-server JSONL file ({@link formatMemoryServerJsonl}). */
  async exportJsonl(): Promise<string> {
    return formatMemoryServerJsonl(await this.readGraph());
  }
}

/** The entities of `nodes` with every relation touching one, read through `graphs`. */
async function withRelations(
  graphs: KnowledgeGraphs,
  nodes: readonly KnowledgeNode[],
): Promise<MemoryServerSnapshot> {
  const chosen = new Set(nodes.map((node) => node.title));
  const edges = await graphs.edgesTouching(nodes.map((node) => node.id));
  const memberIds = unionInOrder(edges.flatMap((edge) => edge.members));
  // Members outside `nodes` are named by title alone (no whole node read for them).
  const titles = new Map(nodes.map((node) => [node.id, node.title]));
  const others = await graphs.titlesOf(memberIds.filter((id) => !titles.has(id)));
  for (const [id, title] of others) titles.set(id, title);
  const titleOf = (id: string): string | undefined => titles.get(id);
  const relations: MemoryServerRelation[] = [];
  for (const edge of edges) {
    for (const relation of relationsOf(edge, titleOf)) {
      if (chosen.has(relation.from) || chosen.has(relation.to)) relations.push(relation);
    }
  }
  return { entities: nodes.map(entityOf), relations: distinctRelations(relations) };
}

function titleLookup(nodes: readonly KnowledgeNode[]): (id: string) => string | undefined {
  const titles = new Map(nodes.map((node) => [node.id, node.title]));
  return (id) => titles.get(id);
}
