export declare const TEST_SERVICES_COMPOSE: string;
export declare const COMPOSE_COMMAND: string;
export declare const NETWORK_SERVICES: { name: string; variable: string; defaultUrl: string; port: number }[];
export declare const PROGRAMS: { name: string; variable: string | undefined; defaultPath: string; install: string }[];
/** Resolves true when something accepts a TCP connection at host:port within the timeout. */
export declare function portAnswers(host: string, port: number, timeoutMs?: number): Promise<boolean>;
/** Each missing service or program, as one line of the message. */
export declare function missingServices(env?: Record<string, string | undefined>): Promise<string[]>;
/** The message printed when something is missing. */
export declare function preflightMessage(missing: string[]): string;
/** Checks everything; writes the message and returns false when something is missing. */
export declare function preflight(
  env?: Record<string, string | undefined>,
  write?: (text: string) => void,
): Promise<boolean>;
