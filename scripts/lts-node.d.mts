export declare const LTS_NODE_PACKAGE: string;
/** The folder of a Node.js 24 binary package (its `bin/node`), installed into a cache folder on first use. */
export declare function ltsNodeDir(): string;
