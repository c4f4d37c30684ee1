#!/usr/bin/env node
// Compiles the AssemblyScript bin-packing score plugin to build/binpack.wasm.
// The module imports the NodeTable's memory, so its static data is placed at 49152 (below the
// 65536 bytes reserved for modules, above the scheduler kernel's own data).
// The package ships the result (`npm run build` runs this), so using the plugin needs no
// compiler; rebuilding it after an edit needs AssemblyScript, a development dependency.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `source`: another AssemblyScript score plugin to compile the same way (same ABI, same flags).
 */
export async function buildBinpack(
  outFile = join(dirname(fileURLToPath(import.meta.url)), 'build', 'binpack.wasm'),
  source = join(dirname(fileURLToPath(import.meta.url)), 'assembly', 'index.ts'),
) {
  const here = dirname(fileURLToPath(import.meta.url));
  let asc;
  try {
    asc = (await import('assemblyscript/asc')).default;
  } catch {
    throw new Error(
      'binpack: compiling this example needs AssemblyScript (npm install --save-dev assemblyscript@0.28.20); ' +
        `the built module is ${join(here, 'build', 'binpack.wasm')}`,
    );
  }
  const { error, stderr } = await asc.main(
    [
      source,
      '--outFile',
      outFile,
      '-O3',
      '--runtime',
      'stub',
      '--noAssert',
      '--importMemory',
      '--memoryBase',
      '49152',
      '--initialMemory',
      '2',
    ],
    { stdout: process.stdout, stderr: process.stderr },
  );
  if (error) throw new Error(`${source}: ${error.message}\n${stderr.toString()}`);
  return outFile;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildBinpack().then(
    (f) => console.log(`built ${f}`),
    (e) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
