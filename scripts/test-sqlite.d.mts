/** Code in a test file that reaches a service whatever TEST_DIALECTS says. */
export declare const NEEDS_A_SERVICE: RegExp[];
/** The integration files (relative to the repository) that need a service beyond SQLite. */
export declare function filesNeedingAService(dir?: string): string[];
