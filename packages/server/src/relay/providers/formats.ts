import type { UpstreamFormat } from '../ir/types.js';
import { providers } from './registry.js';

/**
 * The upstream side of the wire formats by name, derived from the registered descriptors' `formats` (the
 * registry is the one list: a provider's formats come with its registry line, nothing registers itself).
 */
const formats = new Map<string, UpstreamFormat>();
for (const p of providers) {
  for (const [name, format] of Object.entries<UpstreamFormat>(p.formats)) {
    if (format.name !== name)
      throw new Error(`provider ${p.name} lists the ${format.name} converter as format ${name}`);
    const other = formats.get(name);
    if (other && other !== format) throw new Error(`format ${name} has two converters (the second from ${p.name})`);
    formats.set(name, format);
  }
}

/** Every format name some registered provider speaks. */
export const formatNames: readonly string[] = [...formats.keys()];

/** The converter of a format by name (upstream adaptors name the format they speak). */
export function formatFor(name: string): UpstreamFormat {
  const f = formats.get(name);
  if (!f) throw new Error(`no wire format ${name}`);
  return f;
}
