// The helpers both docker-compose.yml tests share: the file parsed as Compose reads it.
import { parse } from 'yaml';
import { obj, readRepoFile, type Obj } from './deploy-facts.ts';

// The compose file uses YAML merge keys (`<<: *anchor`), which Docker Compose supports.
export const compose = obj(parse(readRepoFile('docker-compose.yml'), { merge: true }), 'docker-compose.yml');
export const services = obj(compose.services, 'services');

export function service(name: string): Obj {
  return obj(services[name], `service ${name}`);
}

export function environment(name: string): Record<string, string> {
  const env = obj(service(name).environment, `${name}.environment`);
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value)]));
}
