/** See transpile.mjs. */
export declare function transpileOnce(options: {
  root: string;
  files: readonly string[];
  cacheDir: string;
  moduleType?: boolean;
}): Promise<string>;
