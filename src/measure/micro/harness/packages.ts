/** The harness packages benchgate captures: their imports (hooks.ts) and requires (graphs.ts) are answered by the capture. */
export const HARNESS_PACKAGES: readonly string[] = ['benchmark', 'tinybench', 'mitata', 'vitest', 'cronometro'];

/** The query parameter that gives a bench file, and each worker it starts, a module graph of its own (graphs.ts, inNewGraph). */
export const GRAPH_PARAMETER = 'benchgate-graph';
