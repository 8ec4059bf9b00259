// Assembles the npm package of @flockstep/client and packs it (the wasm build runs this after
// linking the core; sdk/js/CMakeLists.txt):
//
//   node sdk/js/scripts/package.mjs --core build/wasm/sdk/js/flockstep_core.js --out build/wasm/sdk/js
//
// Writes <out>/package/ (what the tarball holds, also what tests/sdk/sdk.test.mjs imports) and
// <out>/flockstep-client.tgz (`npm pack` of it). The package:
//   index.mjs + index.d.mts         ES module (node, bundlers)
//   index.cjs + index.d.cts         CommonJS, built from index.mjs by esbuild
//   browser.mjs                     one ES module for browsers: index.mjs with the wasm core inlined
//   flockstep_core.js               the wasm core (Emscripten, the wasm inlined), for node
//   index.d.ts                      the same declarations for older resolvers (`types`)
//   README.md, LICENSE, examples/
// Its version is the repository's VERSION file (the project's one version source); the licence
// is the repository's (MIT).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SDK = path.resolve(HERE, '..');
const ROOT = path.resolve(SDK, '../..');

function die(message) {
  console.error(`sdk/js package: ERROR: ${message}`);
  process.exit(1);
}

function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) die(`missing ${name} (usage: package.mjs --core FILE --out DIR)`);
  return path.resolve(process.argv[i + 1]);
}

/** The project's version: one line in VERSION at the repository root, e.g. 0.10.0. */
function projectVersion() {
  const file = path.join(ROOT, 'VERSION');
  if (!fs.existsSync(file)) die(`${file} does not exist: the SDK's version is the project's version, read from that file (one line, e.g. 0.10.0)`);
  const v = fs.readFileSync(file, 'utf8').trim();
  // Semantic versioning 2.0 (npm refuses anything else).
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(v)) die(`${file} holds "${v}", not a semantic version like 0.10.0`);
  return v;
}

const core = arg('--core');
const out = arg('--out');
const pkg = path.join(out, 'package');
if (!fs.existsSync(core)) die(`no wasm core at ${core}`);
const version = projectVersion();

fs.rmSync(pkg, { recursive: true, force: true });
fs.mkdirSync(path.join(pkg, 'examples'), { recursive: true });
const copy = (from, to = path.basename(from)) => fs.copyFileSync(from, path.join(pkg, to));
copy(core, 'flockstep_core.js');
copy(path.join(SDK, 'index.mjs'));
copy(path.join(SDK, 'README.md'));
copy(path.join(ROOT, 'LICENSE'));
for (const f of fs.readdirSync(path.join(SDK, 'examples'))) copy(path.join(SDK, 'examples', f), path.join('examples', f));
// One declaration file, three names: `import` and `require` consumers under module nodenext
// each need declarations of their own format (.d.mts / .d.cts); `types` serves older resolvers.
for (const name of ['index.d.ts', 'index.d.mts', 'index.d.cts']) copy(path.join(SDK, 'index.d.ts'), name);

// CommonJS: the same client, converted by esbuild (the core and ws stay separate packages/files).
await esbuild.build({
  entryPoints: [path.join(pkg, 'index.mjs')], outfile: path.join(pkg, 'index.cjs'), bundle: true, format: 'cjs',
  platform: 'node', target: 'node20', external: ['./flockstep_core.js', 'ws'], logLevel: 'warning',
});
// Browsers: one ES module with the core inlined. The core's node branches require fs, path and
// crypto, and index.mjs imports ws only under node; none of them run in a browser.
await esbuild.build({
  entryPoints: [path.join(pkg, 'index.mjs')], outfile: path.join(pkg, 'browser.mjs'), bundle: true, format: 'esm',
  platform: 'browser', target: 'es2022', external: ['ws', 'fs', 'path', 'crypto'], logLevel: 'warning',
});

const manifest = JSON.parse(fs.readFileSync(path.join(SDK, 'package.json'), 'utf8'));
manifest.version = version;
fs.writeFileSync(path.join(pkg, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

// npm pack names the tarball after name and version; the build keeps one stable name.
const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: pkg, encoding: 'utf8' });
const tgz = path.join(out, JSON.parse(packed)[0].filename);
fs.renameSync(tgz, path.join(out, 'flockstep-client.tgz'));
console.log(`sdk/js package: @flockstep/client ${version} -> ${path.join(out, 'flockstep-client.tgz')}`);
