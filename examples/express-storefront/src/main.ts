import { createStoreApp } from "./app.js";
import { loadStoreConfig, StoreConfigError } from "./config.js";

try {
  const config = loadStoreConfig();
  const server = createStoreApp(config).listen(config.port, (error?: Error) => {
    if (error) {
      process.stderr.write(
        `The storefront cannot listen on port ${config.port}: ${error.message}\n`,
      );
      process.exit(1);
    }
    process.stdout.write(`Demo storefront listening on ${config.origin}\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
} catch (error) {
  if (!(error instanceof StoreConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
