/**
 * Makes sure `kubesim store record` (src/store/etcd/cli.ts) is registered before commander
 * dispatches to `kubesim store`: src/cli/store.ts loads it with an un-awaited dynamic import, which
 * can lose the race against argument parsing. The hook awaits the same registration (idempotent).
 */
import type { Command } from 'commander';

export function register(program: Command): void {
  program.hook('preSubcommand', async (_thisCommand, sub) => {
    if (sub.name() !== 'store') return;
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const mod = (await import(new URL(`../store/etcd/cli${ext}`, import.meta.url).href)) as {
      registerStoreCommands(c: Command): void;
    };
    mod.registerStoreCommands(sub);
  });
}
