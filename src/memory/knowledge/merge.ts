import type { KnowledgeNodeFields } from '../../store/knowledge-repo.js';
import type {
  KnowledgeImportMode,
  KnowledgeNode,
  KnowledgeNodeInput,
  KnowledgeSourceRef,
} from '../../core/model/knowledge.js';

/** The items of `lists`, in order, each kept once. */
export function unionInOrder(...lists: readonly (readonly string[])[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const list of lists) {
    for (const item of list) {
      if (seen.has(item)) continue;
      seen.add(item);
      out.push(item);
    }
  }
  return out;
}

/** The stored fields a new node gets from its input. */
function fieldsOf(input: KnowledgeNodeInput): KnowledgeNodeFields {
  return {
    type: input.type ?? '',
    content: input.content ?? '',
    keywords: unionInOrder(input.keywords ?? []),
    observations: unionInOrder(input.observations ?? []),
    sourceRef: input.sourceRef,
  };
}

/**
 * Merged content: the old text when the new one adds nothing (empty, or already contained),
 * the new text when it contains the old, else both, old first.
 */
export function mergeContent(old: string, added: string): string {
  if (added.length === 0 || old.includes(added)) return old;
  if (added.includes(old)) return added;
  return `${old}\n${added}`;
}

function sameSourceRef(a: KnowledgeSourceRef | undefined, b: KnowledgeSourceRef | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.source === b.source && a.start === b.start && a.end === b.end && a.unit === b.unit;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/** True when writing `fields` over `node` would change nothing. */
function unchanged(node: KnowledgeNode, fields: KnowledgeNodeFields): boolean {
  return (
    node.type === fields.type &&
    node.content === fields.content &&
    sameList(node.keywords, fields.keywords) &&
    sameList(node.observations, fields.observations) &&
    sameSourceRef(node.sourceRef, fields.sourceRef)
  );
}

function merged(node: KnowledgeNode, input: KnowledgeNodeInput): KnowledgeNodeFields {
  return {
    type: input.type !== undefined && input.type.length > 0 ? input.type : node.type,
    content: mergeContent(node.content, input.content ?? ''),
    keywords: unionInOrder(node.keywords, input.keywords ?? []),
    observations: unionInOrder(node.observations, input.observations ?? []),
    sourceRef: input.sourceRef ?? node.sourceRef,
  };
}

/**
 * What an import writes for one node: everything for a new node; for an existing one, nothing
 * (`skip`), a union of old and new (`merge`: type and source replaced when given, content
 * merged, keywords and observations unioned in order) or exactly the input (`overwrite`).
 * `undefined` means "leave the node as it is", also when the result equals what is stored,
 * so re-importing a batch changes nothing and reports nothing as updated.
 */
export function resolveNodeFields(
  mode: KnowledgeImportMode,
  input: KnowledgeNodeInput,
  existing: KnowledgeNode | undefined,
): KnowledgeNodeFields | undefined {
  if (existing === undefined) return fieldsOf(input);
  if (mode === 'skip') return undefined;
  const fields = mode === 'merge' ? merged(existing, input) : fieldsOf(input);
  return unchanged(existing, fields) ? undefined : fields;
}
