// The quickstart as CommonJS (require): the package's index.cjs.
const { connect } = require('@flockstep/client');

async function main() {
  const client = await connect(process.env.FLOCKSTEP_URL ?? 'ws://localhost:8080/ws');
  const welcome = await client.join({ role: 'player', name: 'sdk-example' });
  console.log(`craft ${welcome.entityId} in room ${welcome.room}`);
  const timer = setInterval(() => client.sendInput({ turn: 0.2, throttle: 1 }), 1000 / welcome.tickRateHz);
  setTimeout(() => { clearInterval(timer); console.log('predicted', client.prediction?.position); client.close(); }, 3000);
}
main().catch((err) => { console.error(err); process.exit(1); });
