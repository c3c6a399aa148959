/** Conversions of source column values (each driver returns its own types) to what Tollway's columns hold. */
export type Row = Record<string, unknown>;

/** Text: null → '', JSON columns (parsed by pg and mysql2) back to JSON text, buffers as UTF-8. */
export function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Integer or float: null → fallback; booleans as 0/1; numeric strings parsed. */
export function num(v: unknown, fallback = 0): number {
  if (v === null || v === undefined || v === '') return fallback;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (Buffer.isBuffer(v)) return v.length === 1 ? v[0]! : fallback;
  const n = Number(v);
  return Number.isFinite(n) ? n : fallback;
}

/** A boolean column as Tollway's 0/1. */
export const flag = (v: unknown): number => (num(v) ? 1 : 0);

/** GORM's soft-delete time as Tollway's ISO text; null while the row is live. */
export function deletedAt(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) return v.toISOString();
  const d = new Date(String(v));
  return Number.isNaN(d.getTime()) ? String(v) : d.toISOString();
}

/** A JSON object column read leniently ({} when empty or not an object). */
export function jsonObject(v: unknown): Record<string, unknown> {
  if (v && typeof v === 'object' && !Buffer.isBuffer(v) && !(v instanceof Date)) return v as Record<string, unknown>;
  const t = text(v);
  if (!t) return {};
  try {
    const parsed = JSON.parse(t) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** True when a text column carries something beyond an empty value or an empty JSON object. */
export const meaningful = (v: unknown): boolean => !['', '{}', 'null', '[]'].includes(text(v).trim());

/** An id reference moved by an offset (0 stays 0: no reference). */
export const ref = (v: unknown, offset: number): number => {
  const n = num(v);
  return n > 0 ? n + offset : n;
};
