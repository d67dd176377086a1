/**
 * Which files benchgate loads as TypeScript (.ts, .mts, .cts; JSX is refused): by path or by URL, whose query may
 * name its module graph (graphs.ts). One answer for the hooks that load them (hooks.ts), the runner that maps their
 * profile frames (runner.ts) and the profile reader that names their functions (explain/functions.ts). No import, so
 * each bundle that needs it stays free of the transform (typescript.ts).
 */
export const isTypeScript = (pathOrUrl: string): boolean => /\.(?:ts|mts|cts)$/.test(pathOrUrl.replace(/[?#].*$/s, ''));
