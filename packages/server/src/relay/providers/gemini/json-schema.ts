import { isRecord as isObject, type JsonObject } from '../../ir/json-data.js';

/**
 * Schemas in both directions: Gemini's Schema → JSON Schema (requests from Gemini callers), and JSON Schema →
 * Gemini's Schema (requests to Gemini upstreams, `geminiSchema` below).
 *
 * Gemini's Schema (a subset of OpenAPI 3.0: upper-case type names, `nullable`, `propertyOrdering`) → JSON Schema,
 * the IR's schema language. Types are lower-cased, `nullable: true` becomes a `null` member of the type (and of the
 * enum), OpenAPI-only keywords are dropped and other keywords kept. Applied to a schema that already is JSON
 * Schema it changes nothing.
 */

/** Nesting beyond this is cut (a guard against hostile input; real schemas are far shallower). */
const MAX_DEPTH = 32;

/** OpenAPI keywords with no JSON Schema meaning. */
const DROPPED = new Set(['nullable', 'propertyOrdering', 'example']);

/** Integer keywords the proto JSON of Gemini may spell as strings ("int64" fields). */
const INTEGER_KEYS = new Set(['minItems', 'maxItems', 'minProperties', 'maxProperties', 'minLength', 'maxLength']);

/** Gemini's number formats and its `enum` string format are OpenAPI's, not JSON Schema's. */
const OPENAPI_FORMATS = new Set(['int32', 'int64', 'float', 'double', 'enum']);

function typeName(t: unknown): string | undefined {
  const name = String(t).toLowerCase();
  return name === 'type_unspecified' || name === '' ? undefined : name;
}

export function jsonSchemaFromGemini(schema: unknown, depth = 0): JsonObject {
  if (!isObject(schema) || depth > MAX_DEPTH) return {};
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(schema)) {
    if (DROPPED.has(k)) continue;
    if (k === 'type') {
      const t = Array.isArray(v) ? v.map(typeName).filter(Boolean) : typeName(v);
      if (t !== undefined) out.type = t;
    } else if (k === 'properties' && isObject(v)) {
      out.properties = Object.fromEntries(
        Object.entries(v).map(([name, sub]) => [name, jsonSchemaFromGemini(sub, depth + 1)]),
      );
    } else if (k === 'items')
      out.items = Array.isArray(v)
        ? v.map((s) => jsonSchemaFromGemini(s, depth + 1))
        : jsonSchemaFromGemini(v, depth + 1);
    else if ((k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'prefixItems') && Array.isArray(v))
      out[k] = v.map((s) => jsonSchemaFromGemini(s, depth + 1));
    else if (k === 'format' && OPENAPI_FORMATS.has(String(v))) continue;
    else if (INTEGER_KEYS.has(k) && typeof v === 'string' && /^\d+$/.test(v)) out[k] = Number(v);
    else out[k] = v;
  }
  if (schema.nullable === true) makeNullable(out);
  return out;
}

/** Lets a JSON Schema accept null: `type: [t, 'null']` (and null in its enum), or an anyOf branch. */
function makeNullable(s: JsonObject): void {
  if (typeof s.type === 'string') s.type = s.type === 'null' ? 'null' : [s.type, 'null'];
  else if (Array.isArray(s.type)) {
    if (!s.type.includes('null')) s.type = [...s.type, 'null'];
  } else if (Array.isArray(s.anyOf)) {
    if (!s.anyOf.some((b: JsonObject | undefined) => b?.type === 'null')) s.anyOf = [...s.anyOf, { type: 'null' }];
    return;
  } else return;
  if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
}

/* ---------- JSON Schema → Gemini ---------- */

/** Keywords Gemini's OpenAPI-subset Schema accepts; everything else ($schema, additionalProperties, …) is dropped. */
const SCHEMA_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const STRING_FORMATS = new Set(['enum', 'date-time']);

function resolveRef(root: JsonObject, ref: string): JsonObject | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  // A pointer may pass through any JSON value; reading a field of a string or number gives what JavaScript gives.
  for (const seg of ref.slice(2).split('/'))
    node = (node as JsonObject | undefined)?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node && typeof node === 'object' ? (node as JsonObject) : undefined;
}

/**
 * JSON Schema → the Schema Gemini accepts: local $refs inlined, `type: [x, 'null']` and `anyOf` with a null
 * branch → nullable, `const` → enum, `oneOf` → anyOf, unsupported keywords and string formats dropped. Type
 * names are kept as given (lowercase JSON Schema or uppercase OpenAPI both work).
 */
export function geminiSchema(schema: unknown, root: JsonObject = schema as JsonObject, depth = 0): JsonObject {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema) || depth > 24) return {};
  let s = schema as JsonObject;
  if (typeof s.$ref === 'string') {
    const { $ref, ...rest } = s;
    s = { ...resolveRef(root, $ref as string), ...rest };
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'const') out.enum ??= [v];
    else if (k === 'anyOf' || k === 'oneOf') {
      const branches = (Array.isArray(v) ? v : []).filter(
        (b: JsonObject | undefined) => b?.type !== 'null' && b?.type !== 'NULL',
      );
      if (branches.length < (Array.isArray(v) ? v.length : 0)) out.nullable = true;
      if (branches.length === 1) Object.assign(out, geminiSchema(branches[0], root, depth + 1));
      else if (branches.length) out.anyOf = branches.map((b: unknown) => geminiSchema(b, root, depth + 1));
    } else if (!SCHEMA_KEYS.has(k)) continue;
    else if (k === 'type' && Array.isArray(v)) {
      const types = v.filter((t) => String(t).toLowerCase() !== 'null');
      out.type = types[0] ?? 'string';
      if (types.length < v.length) out.nullable = true;
    } else if (k === 'properties' && v && typeof v === 'object') {
      const props = Object.fromEntries(
        Object.entries(v as JsonObject).map(([name, sub]) => [name, geminiSchema(sub, root, depth + 1)]),
      );
      if (Object.keys(props).length) out.properties = props;
    } else if (k === 'items') out.items = geminiSchema(Array.isArray(v) ? v[0] : v, root, depth + 1);
    else if (k === 'format' && String(s.type).toLowerCase() === 'string' && !STRING_FORMATS.has(String(v))) continue;
    else out[k] = v;
  }
  return out;
}
