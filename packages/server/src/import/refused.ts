/** Raised when the import will not start (nothing written): the CLI exits with code 2. */
export class RefusedError extends Error {}
