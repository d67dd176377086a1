/** The package version, put in by scripts/build.mjs (esbuild define). */
declare const BENCHGATE_VERSION: string;
