import { memoryCredentialStore, memoryStore } from '@plugboard/sdk/host';
import { describeCredentialContract } from './contract/credentials.js';
import { describeStoresContract } from './contract/stores.js';

// One process: another view of the state is the same instance.
describeStoresContract('memoryStore', async () => {
  const stores = memoryStore();
  return { stores, reopen: () => stores };
});
describeCredentialContract('memoryCredentialStore', async () => {
  const store = memoryCredentialStore();
  return { store, reopen: () => store };
});
