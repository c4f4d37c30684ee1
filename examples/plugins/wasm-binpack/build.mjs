#!/usr/bin/env node
// Compiles the AssemblyScript bin-packing score plugin to build/binpack.wasm.
// The module imports the NodeTable's memory, so its static data is placed at 49152 (below the
// 65536 bytes reserved for modules, above the scheduler kernel's own data).
import asc from 'assemblyscript/asc';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export async function buildBinpack(
  outFile = join(dirname(fileURLToPath(import.meta.url)), 'build', 'binpack.wasm'),
) {
  const here = dirname(fileURLToPath(import.meta.url));
  const { error, stderr } = await asc.main(
    [
      join(here, 'assembly', 'index.ts'),
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
  if (error) throw new Error(`binpack: ${error.message}\n${stderr.toString()}`);
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
