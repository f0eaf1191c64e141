// Runs in every integration and contract test file: once the file's own afterAll hooks have stopped its
// services, the BullMQ keys of the queue prefixes it used are removed from the shared test Redis.
import { afterAll } from 'vitest';
import { dropQueuePrefixes } from './postgres.js';

afterAll(async () => {
  await dropQueuePrefixes();
});
