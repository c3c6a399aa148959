import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** The repository's root, where the Dockerfile and deploy/ live. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../../..');
export const COMPOSE_FILE = path.join(REPO_ROOT, 'deploy/compose.yaml');
export const NGINX_CONF = path.join(REPO_ROOT, 'deploy/nginx.conf');
export const DOCKERFILE = path.join(REPO_ROOT, 'Dockerfile');

export interface ComposeService {
  image?: string;
  build?: { context: string } | string;
  environment?: Record<string, string | number | boolean | null>;
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }> | string[];
  ports?: string[];
  restart?: string;
  stop_grace_period?: string;
  init?: boolean;
  command?: string[];
}

export interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** deploy/compose.yaml as Compose reads it (YAML merge keys resolved). */
export function readCompose(): Compose {
  return parse(fs.readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as Compose;
}

/** The services that run the Tollway image. */
export function tollwayServices(c: Compose): string[] {
  return Object.keys(c.services).filter((name) => c.services[name]!.image?.startsWith('tollway'));
}

/**
 * Compose's variable interpolation: `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`,
 * `${VAR?error}`, `$$` for a dollar. A required variable that is missing throws, as `docker compose` refuses.
 */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(
    /\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (_m, dollar, name, colon, op, arg, bare) => {
      if (dollar === '$') return '$';
      const v = vars[name ?? bare];
      const unset = colon ? !v : v === undefined;
      if (op === '-') return unset ? arg : v!;
      if (op === '?' && unset) throw new Error(`compose: required variable ${name}: ${arg}`);
      return v ?? '';
    },
  );
}

/** A service's environment with the variables filled in, every value a string (as the container sees it). */
export function serviceEnv(
  c: Compose,
  service: string,
  vars: Record<string, string | undefined>,
): Record<string, string> {
  const env = c.services[service]?.environment ?? {};
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v ?? ''), vars)]));
}

/** A `volume:/path` entry of a service: the named volume or host path, and where it is mounted. */
export function volumeMounts(s: ComposeService): { source: string; target: string }[] {
  return (s.volumes ?? []).map((v) => {
    const [source, target] = v.split(':');
    return { source: source!, target: target! };
  });
}

export interface DockerInstruction {
  op: string;
  args: string;
}

export interface DockerStage {
  from: string;
  name: string | undefined;
  instructions: DockerInstruction[];
}

/** The Dockerfile's stages and their instructions (comments dropped, `\` continuations joined). */
export function readDockerfile(): DockerStage[] {
  const lines = fs
    .readFileSync(DOCKERFILE, 'utf8')
    .split('\n')
    .filter((l) => !/^\s*#/.test(l));
  const joined = lines.join('\n').replace(/\\\n/g, ' ');
  const stages: DockerStage[] = [];
  for (const line of joined.split('\n')) {
    const m = /^\s*([A-Za-z]+)\s+(.*?)\s*$/.exec(line);
    if (!m) continue;
    const op = m[1]!.toUpperCase();
    const args = m[2]!.replace(/\s+/g, ' ');
    if (op === 'FROM') {
      const [from, as, name] = args.split(' ');
      stages.push({ from: from!, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length) stages.at(-1)!.instructions.push({ op, args });
  }
  return stages;
}

/** An instruction's exec form (`["node", "…"]`). */
export function execForm(args: string): string[] {
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string'))
    throw new Error(`not an exec form: ${args}`);
  return parsed;
}

/** The last value of an instruction in a stage (CMD, WORKDIR, USER …). */
export function lastOf(stage: DockerStage, op: string): string | undefined {
  return stage.instructions.filter((i) => i.op === op).at(-1)?.args;
}

/** The final stage's HEALTHCHECK command (exec form). */
export function imageHealthCheck(): string[] {
  const check = lastOf(readDockerfile().at(-1)!, 'HEALTHCHECK')!;
  return execForm(check.slice(check.indexOf(' CMD ') + ' CMD '.length));
}
