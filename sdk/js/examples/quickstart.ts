// The quickstart in TypeScript (tsconfig "module": "nodenext"): compiled as CommonJS in a package
// without "type": "module" (the require condition and index.d.cts), as ESM when renamed .mts.
import { connect, type Snapshot, type Welcome } from '@flockstep/client';

declare const process: { env: Record<string, string | undefined>; exit(code: number): never };  // or @types/node

async function main(): Promise<void> {
  const client = await connect(process.env.FLOCKSTEP_URL ?? 'ws://localhost:8080/ws');
  const welcome: Welcome = await client.join({ role: 'player', name: 'sdk-example' });
  console.log(`craft ${welcome.entityId} in room ${welcome.room}`);
  client.on('snapshot', (s: Snapshot) => { if (s.own && s.serverTick % 60 === 0) console.log(s.serverTick, s.own.position); });
  const timer = setInterval(() => client.sendInput({ turn: 0.2, throttle: 1 }), 1000 / welcome.tickRateHz);
  setTimeout(() => { clearInterval(timer); console.log('predicted', client.prediction?.position); client.close(); }, 3000);
}
main().catch((err: unknown) => { console.error(err); process.exit(1); });
