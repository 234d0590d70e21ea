import { benchStore } from './store.bench';
const quick = process.argv.includes('--quick');
benchStore({ quick }).then((f) => { console.table(f); process.exit(0); });
