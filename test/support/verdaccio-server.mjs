// Starts Verdaccio with the given config file on 127.0.0.1 and the given port (a free one when
// 0 or none), prints {"port": N} as one JSON line when it listens, and serves until SIGTERM or
// SIGINT. A port already taken exits 1 naming it.
//
//   node verdaccio-server.mjs CONFIG_FILE [PORT]
import { runServer } from 'verdaccio';

const [configFile, port = '0'] = process.argv.slice(2);
if (!configFile) {
  console.error('usage: node verdaccio-server.mjs CONFIG_FILE');
  process.exit(2);
}
// Verdaccio 9's tarball route races its own answer in two ways, each harmless to the answer
// itself: it may set a header after the answer began (ERR_HTTP_HEADERS_SENT), and it asks the
// size of a tarball's file after the file was opened, without waiting, so on a busy machine the
// file may already be read whole and closed (EBADF from fstat, a rejection nothing handles; the
// answer then goes without a length). One such throw must not end the registry under every
// other request.
const racedAnswer = (error) =>
  error?.code === 'ERR_HTTP_HEADERS_SENT' || (error?.code === 'EBADF' && error?.syscall === 'fstat');
process.on('uncaughtException', (error) => {
  if (!racedAnswer(error)) throw error;
  process.stderr.write(`ignored, raced by its answer: ${error.message}\n`);
});
const app = await runServer(configFile);
const server = app.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
server.once('error', (error) => {
  process.stderr.write(
    error.code === 'EADDRINUSE' ? `port ${port} of 127.0.0.1 is already in use\n` : `${error.message}\n`,
  );
  process.exit(1);
});
const stop = () => {
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
};
// npm keeps sockets open between requests: a server that closes an idle one first (Node's
// default is after 5 s) resets npm's next request on it.
server.keepAliveTimeout = 120_000;
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
