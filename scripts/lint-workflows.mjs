// Writes every workflow example of the README (a ```yaml block with a `jobs:` key) to a file of its
// own in the given directory, so actionlint checks the docs as well as .github/workflows/.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const out = process.argv[2];
if (!out) throw new Error('usage: node scripts/lint-workflows.mjs <out-dir>');
mkdirSync(out, { recursive: true });
const blocks = [...readFileSync('README.md', 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).filter((yaml) => /^jobs:/m.test(yaml));
blocks.forEach((yaml, i) => writeFileSync(path.join(out, `readme-example-${i + 1}.yml`), yaml));
console.log(`${blocks.length} workflow examples from README.md`);
