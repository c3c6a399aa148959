/** Path of the generated environment reference (docs/install/environment.md). */
export declare const environmentDoc: string;
/** The Markdown of the reference for the given sections and variables. */
export declare function renderEnvironment(
  groups: Record<string, string>,
  variables: readonly { name: string; group: string; default: string; meaning: string }[],
): string;
