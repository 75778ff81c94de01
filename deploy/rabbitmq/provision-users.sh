#!/bin/sh
# Creates (or updates) one RabbitMQ user per service with permissions on its own queues only. Run against the broker node (rabbitmqctl; in Compose the `broker-users`
# one-shot service, in Kubernetes a Job with the same image and the node's Erlang cookie).
#
#   AMQP_PASSWORD_<SERVICE> (e.g. AMQP_PASSWORD_WEBHOOK_DISPATCHER)  each service's password
#   RABBITMQ_NODE      the node to manage (default rabbit@rabbitmq)
#   AMQP_PREFIX        the exchange/queue prefix (AMQP_NAMESPACE, "svc" when empty)
#   BROKER_USER_PREFIX put before each user name (default none: the user is the service's name)
#
# Why these rules (docs/security.md): a service may declare and read only `<prefix>.<service>.*` plus
# the shared exchanges and retry tiers, so it cannot consume another service's queue (an RPC request
# carrying credentials, say). Publishing needs write on the exchanges; who may *call* an RPC is checked
# by the server on the broker-validated user-id (BROKER_USER_PREFIX="" makes the user the service name).
set -eu
node="${RABBITMQ_NODE:-rabbit@rabbitmq}"
prefix="$(printf '%s' "${AMQP_PREFIX:-svc}" | sed 's/\./\\./g')"
shared="$prefix\\.(events|commands|retry|parking)"

# The queues of the events a service publishes: the publishing broker declares its subscribers' queues
# before the first publish (libs/contracts/src/catalog/subscriptions.ts), so it needs configure, write
# and read on them (RabbitMQ checks read on a queue declared with a dead-letter exchange). None is an
# RPC queue: requests and replies with credentials stay readable by their owner only. Keep in step
# with that table. The publisher keeps scheduler.work although the scheduler no longer subscribes to
# post.queued: publishers of the previous release still declare it, until an upgrade is complete.
publishes_to() {
  case "$1" in
    publisher) echo "webhook\\-dispatcher\\.work|analytics\\-sync\\.work|scheduler\\.work" ;;
    accounts) echo "webhook\\-dispatcher\\.work" ;;
    billing) echo "publisher\\.plans|accounts\\.plans" ;;
    *) echo "" ;;
  esac
}

# Every deployed service (test/deploy keeps this list equal to services/*, the sandbox aside). The
# dashboard declares and sends nothing, but its runtime connects like every service's: it declares the
# shared exchanges and retry tiers, which the rules below allow.
# Each rabbitmqctl call starts an Erlang VM (a second or more): the users are listed once.
existing="$(rabbitmqctl -q -n "$node" list_users | cut -f1)"
for service in gateway dashboard accounts publisher scheduler webhook-dispatcher analytics-sync billing; do
  var="AMQP_PASSWORD_$(printf '%s' "$service" | tr 'a-z-' 'A-Z_')"
  password="$(eval "printf '%s' \"\${$var:-}\"")"
  [ -n "$password" ] || { echo "provision-users: $var is not set" >&2; exit 1; }
  user="${BROKER_USER_PREFIX:-}$service"
  own="$prefix\\.$(printf '%s' "$service" | sed 's/-/\\-/g')\\..*"
  targets="$(publishes_to "$service")"
  subscribers="$prefix\\.(${targets:-none\\.none})(\\.parking)?"
  if printf '%s\n' "$existing" | grep -qx "$user"; then
    rabbitmqctl -q -n "$node" change_password "$user" "$password"
  else
    rabbitmqctl -q -n "$node" add_user "$user" "$password"
  fi
  # configure: its own queues, the shared exchanges, the retry tier queues and its events' subscriber
  # queues it declares.
  # write: the shared exchanges, the default exchange (RPC requests and replies), and the queues it
  # binds (its own and the retry tiers: queue.bind needs write on the queue).
  # read: its own queues, the shared exchanges (to bind), its subscribers' queues and direct reply-to.
  rabbitmqctl -q -n "$node" set_permissions -p / "$user" \
    "^($own|$shared|$prefix\\.retry\\.[0-9]+|$subscribers)\$" \
    "^(amq\\.default|$shared|$own|$prefix\\.retry\\.[0-9]+|$subscribers)\$" \
    "^($own|$shared|$prefix\\.retry\\.[0-9]+|$subscribers|amq\\.rabbitmq\\.reply-to.*)\$"
  echo "provision-users: $user ready"
done
