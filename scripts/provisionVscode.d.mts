// Types for scripts/provisionVscode.mjs, for the TypeScript test code that imports it.
export declare const CODE_SERVER_VERSION: string;
export declare const repoRoot: string;
export interface ProvisionResult {
  /** Absolute path of code-server's out/node/entry.js. */
  codeServerEntry: string;
  /** Absolute path of the Chromium executable. */
  chromium: string;
  version: string;
}
export declare function provisionVscode(options?: { root?: string; log?: (line: string) => void }): Promise<ProvisionResult>;
export declare function findChromium(): string | undefined;
