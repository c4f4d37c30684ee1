/**
 * The dataplane model's public surface (the `kubesim/proxy/dataplane` subpath): compile a mode's
 * rendered rules into a Program, generate packets, classify them with the JS or WASM kernel.
 * docs/proxy-dataplane.md shows the use.
 */
export { compileMode, compileSync, PROXY_MODES, type ModeCompileOptions } from './modes.js';
export { JsKernel, newResult, newPacketBatch, type ClassifyResult, type PacketBatch } from './kernel-js.js';
export { WasmKernel } from './kernel-wasm.js';
export { generatePackets, frontendsOf, type GeneratedPackets, type PacketGenOptions } from './packets.js';
export { Program, RES_DROP, RES_REJECT, RES_PASS } from './program.js';
export { compileIptables, type IptablesCompileOptions } from './compile-iptables.js';
export { compileIpvs, parseIpsetRestore, type IpvsCompileInput } from './compile-ipvs.js';
export { compileNftables, NftTable, type NftCompileOptions } from './compile-nftables.js';
