/** Path of the production server bundle (packages/server/dist/main.mjs). */
export declare const serverBundle: string;
/** True when the bundle is missing or older than the server or shared sources. */
export declare function serverIsStale(): boolean;
export declare function buildServer(): Promise<void>;
