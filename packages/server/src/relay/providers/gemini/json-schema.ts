/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = Record<string, any>;

/**
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

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

function typeName(t: unknown): string | undefined {
  const name = String(t).toLowerCase();
  return name === 'type_unspecified' || name === '' ? undefined : name;
}

export function jsonSchemaFromGemini(schema: unknown, depth = 0): Json {
  if (!isObject(schema) || depth > MAX_DEPTH) return {};
  const out: Json = {};
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
function makeNullable(s: Json): void {
  if (typeof s.type === 'string') s.type = s.type === 'null' ? 'null' : [s.type, 'null'];
  else if (Array.isArray(s.type)) {
    if (!s.type.includes('null')) s.type = [...s.type, 'null'];
  } else if (Array.isArray(s.anyOf)) {
    if (!s.anyOf.some((b: Json) => b?.type === 'null')) s.anyOf = [...s.anyOf, { type: 'null' }];
    return;
  } else return;
  if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...s.enum, null];
}
