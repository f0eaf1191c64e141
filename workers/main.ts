// Worker process entry point (`npm run start:workers`): queue processors only, no HTTP.
import { runProcess } from '../src/process.js';

await runProcess('workers');
