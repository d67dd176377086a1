// The layering of src/, checked in CI (npm run lint:layers): one folder per stage, and a stage only
// imports stages below it. Lowest first: util, config, stats (pure decision rules), checkout,
// measure, explain, report, history (records of main, drift, bisect), then the entry points that wire them (gate, calibrate, cli, action).
const LAYERS = ['util', 'config', 'stats', 'checkout', 'measure', 'explain', 'report', 'history'];
const ENTRY = '^src/(gate|calibrate|cli|action)(\\.ts$|/)';

const upward = LAYERS.map((layer, i) => ({
  name: `${layer}-imports-a-higher-stage`,
  comment: `src/${layer} may import only ${LAYERS.slice(0, i).join(', ') || 'nothing of src'}: a lower stage never reaches up.`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: [...LAYERS.slice(i + 1).map((higher) => `^src/${higher}/`), ENTRY] },
}));

module.exports = {
  forbidden: [
    { name: 'no-circular', comment: 'No import cycles.', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
    ...upward,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|scripts|dist|fixtures)/' },
  },
};
