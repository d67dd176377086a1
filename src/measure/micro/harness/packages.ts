/** The harness packages benchgate captures: their imports (hooks.ts) and requires (capture.ts) are answered by the capture. */
export const HARNESS_PACKAGES: readonly string[] = ['benchmark', 'tinybench', 'mitata', 'vitest'];
