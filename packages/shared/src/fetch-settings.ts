import { z } from 'zod';
import { ErrorCode } from './error-codes.js';
import { inputRule } from './input-rules.js';

/** Schemas of the outbound request guard's list options (fetch_setting.*, new-api's names). */

const MAX_PORT = 65535;

/** "80" or "8000-9000" as a range of ports; undefined when the text is not one. */
export function parsePortRange(text: string): { from: number; to: number } | undefined {
  const parts = text.trim().split('-');
  if (parts.length > 2) return undefined;
  const nums = parts.map((p) => (/^\d{1,5}$/.test(p.trim()) ? Number(p.trim()) : NaN));
  const from = nums[0]!;
  const to = nums[1] ?? from;
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1 || to > MAX_PORT || from > to) return undefined;
  return { from, to };
}

/** A host name, or *. followed by one (the wildcard matches the domain and its subdomains). */
const DOMAIN_LABELS = /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/i;

const ipOrBlock = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]);

// Each entry's rule carries a code (the console's text names the entry, {field}).
export const fetchDomainList = z.array(
  z
    .string()
    .trim()
    .max(253)
    .refine(
      (d) => DOMAIN_LABELS.test(d),
      inputRule(ErrorCode.FetchDomainInvalid, 'each entry must be a domain such as example.com or *.example.com'),
    ),
);
export const fetchIpList = z.array(
  z
    .string()
    .refine(
      (ip) => ipOrBlock.safeParse(ip).success,
      inputRule(ErrorCode.FetchIpInvalid, 'each entry must be an IP address or a CIDR block such as 10.0.0.0/8'),
    ),
);
export const fetchPortList = z.array(
  z
    .string()
    .refine(
      (p) => parsePortRange(p) !== undefined,
      inputRule(ErrorCode.FetchPortInvalid, 'each entry must be a port (1-65535) or a range such as 8000-9000'),
    ),
);

/** new-api's defaults: web ports only. */
export const DEFAULT_FETCH_PORTS = ['80', '443', '8080', '8443'];
