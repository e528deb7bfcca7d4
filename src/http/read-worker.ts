// A read worker of the HTTP server (see read-pool.ts): opens its own read-only handle on the
// memory and runs the API's read routes it is sent, one at a time, until told to close.
import { parentPort, workerData } from 'node:worker_threads';
import { openMemory, type MemoryDB } from '../api/memory-db.js';
import { serializeError, type MainMessage, type ReadWorkerData, type WorkerMessage } from './read-pool.js';
import { routeKey, type Route } from './route.js';
import { apiRoutes } from './routes/index.js';

async function main(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('read-worker.js runs only as a worker thread');
  const data = workerData as ReadWorkerData;
  const post = (message: WorkerMessage): void => port.postMessage(message);
  let db: MemoryDB;
  try {
    db = await openMemory(data.file, { readOnly: true, busyTimeoutMs: data.busyTimeoutMs });
  } catch (error) {
    post({ type: 'failed', error: serializeError(error) });
    return;
  }
  const routes = new Map<string, Route>(
    apiRoutes()
      .filter((route) => !route.write)
      .map((route) => [routeKey(route), route]),
  );
  port.on('message', (message: MainMessage) => {
    if (message.type === 'close') {
      void db
        .close()
        .catch(() => undefined)
        .finally(() => port.close());
      return;
    }
    const route = routes.get(message.route);
    const run = async (): Promise<unknown> => {
      if (route === undefined) throw new Error(`no read route ${message.route} in the worker`);
      return route.handler({ ...message.input, db });
    };
    run()
      .then((result) => post({ type: 'done', id: message.id, result }))
      .catch((error: unknown) => post({ type: 'error', id: message.id, error: serializeError(error) }));
  });
  post({ type: 'ready' });
}

void main();
