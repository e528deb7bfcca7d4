// The throwaway PostgreSQL server of the tests is the one the benchmark uses (one starter).
export { pgBinDir, startPgServer, type PgServer } from '../../bench/postgres-server.js';
