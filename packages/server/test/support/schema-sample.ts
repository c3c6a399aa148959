/** A JSON Schema (or Gemini OpenAPI-style schema) node, loosely typed: the mock reads what clients send. */
export type SchemaNode = Record<string, unknown>;

/** Sample values: the mock vendor's deterministic answers built from a schema. */
export const SAMPLE_STRING = 'sample';
export const SAMPLE_NUMBER = 1;
export const SAMPLE_BOOLEAN = true;

/** Depth past which a (recursive) schema is answered with null. */
const MAX_DEPTH = 8;

function typeOf(node: SchemaNode): string | undefined {
  const t = node.type;
  const first = Array.isArray(t) ? t.find((x) => String(x).toLowerCase() !== 'null') : t;
  if (typeof first === 'string') return first.toLowerCase();
  if (node.properties) return 'object';
  if (node.items) return 'array';
  return undefined;
}

/** The first alternative of anyOf/oneOf/allOf that is not `null`. */
function firstAlternative(node: SchemaNode): SchemaNode | undefined {
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    const pick = (list as SchemaNode[]).find((s) => typeOf(s) !== 'null') ?? (list as SchemaNode[])[0];
    if (pick) return pick;
  }
  return undefined;
}

function resolveRef(node: SchemaNode, root: SchemaNode): SchemaNode | undefined {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return undefined;
  let cur: unknown = root;
  for (const part of ref.slice(2).split('/')) cur = (cur as Record<string, unknown> | undefined)?.[part];
  return cur && typeof cur === 'object' ? (cur as SchemaNode) : undefined;
}

function sampleNode(node: SchemaNode, root: SchemaNode, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  const target = resolveRef(node, root) ?? firstAlternative(node);
  if (target) return sampleNode(target, root, depth + 1);
  if (Array.isArray(node.enum) && node.enum.length) return node.enum[0];
  if ('const' in node) return node.const;
  switch (typeOf(node)) {
    case 'string':
      return SAMPLE_STRING;
    case 'number':
    case 'integer':
      return SAMPLE_NUMBER;
    case 'boolean':
      return SAMPLE_BOOLEAN;
    case 'null':
      return null;
    case 'array':
      return [sampleNode((node.items as SchemaNode | undefined) ?? {}, root, depth + 1)];
    case 'object': {
      const props = (node.properties as Record<string, SchemaNode> | undefined) ?? {};
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sampleNode(v, root, depth + 1)]));
    }
    default:
      return {};
  }
}

/**
 * A value matching the schema: string "sample", number/integer 1 (or enum[0]), boolean true, arrays of one item,
 * objects with every property. Accepts JSON Schema and Gemini's upper-case types alike.
 */
export function sampleFromSchema(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return {};
  return sampleNode(schema as SchemaNode, schema as SchemaNode, 0);
}

/** True when any node of the schema has a Gemini-style upper-case `type` ("OBJECT", "STRING"…), which JSON Schema APIs reject. */
export function hasUpperCaseTypes(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  if (Array.isArray(schema)) return schema.some(hasUpperCaseTypes);
  const node = schema as SchemaNode;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.some((t) => typeof t === 'string' && t !== t.toLowerCase())) return true;
  return Object.entries(node).some(
    ([k, v]) =>
      k !== 'enum' &&
      k !== 'const' &&
      k !== 'default' &&
      k !== 'example' &&
      typeof v === 'object' &&
      hasUpperCaseTypes(v),
  );
}
