// The Grafana dashboard, declared as panels; scripts/generate-monitoring.mjs writes it to
// grafana/social-publishing.json (import that file into Grafana, or load it through a dashboard
// provider). Every metric an expression names is checked against the services' /metrics
// (test/monitoring/metrics-exported.int.test.ts).

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
const SVC = 'service=~"$service"';

/** One time-series panel; `targets` are [legend, expression] pairs. */
function timeseries(title, unit, targets, description) {
  return {
    type: 'timeseries',
    title,
    description,
    datasource: DATASOURCE,
    fieldConfig: { defaults: { unit }, overrides: [] },
    options: { legend: { displayMode: 'table', placement: 'bottom', calcs: ['lastNotNull', 'max'] } },
    targets: targets.map(([legendFormat, expr], i) => ({
      refId: String.fromCharCode(65 + i),
      datasource: DATASOURCE,
      expr,
      legendFormat,
    })),
  };
}

const rows = [
  [
    'Services: request rate, errors, latency',
    [
      timeseries('Gateway requests by route', 'reqps', [
        ['{{route}}', 'sum by (route) (rate(http_request_duration_seconds_count[5m]))'],
      ]),
      timeseries('Gateway error ratio (5xx)', 'percentunit', [
        [
          '5xx',
          'sum(rate(http_request_duration_seconds_count{status=~"5.."}[5m])) / sum(rate(http_request_duration_seconds_count[5m]))',
        ],
      ]),
      timeseries('Gateway latency', 's', [
        ['p50', 'histogram_quantile(0.5, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))'],
        ['p95', 'histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))'],
        ['p99', 'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))'],
      ]),
      timeseries(
        'Messages handled by service',
        'ops',
        [['{{service}}', `sum by (service) (rate(svc_messages_consumed_total{${SVC}}[5m]))`]],
        "A worker's request rate: the messages its handlers took.",
      ),
      timeseries('Message handler errors by service and outcome', 'ops', [
        [
          '{{service}} {{outcome}}',
          `sum by (service, outcome) (rate(svc_messages_consumed_total{${SVC},outcome!="ack"}[5m]))`,
        ],
      ]),
      timeseries('Message handler latency p95 by service', 's', [
        [
          '{{service}}',
          `histogram_quantile(0.95, sum by (service, le) (rate(svc_message_handler_seconds_bucket{${SVC}}[5m])))`,
        ],
      ]),
    ],
  ],
  [
    'Queues: depth and consumer lag',
    [
      timeseries('Ready messages by queue', 'short', [
        ['{{queue}}', 'max by (queue) (svc_queue_messages_ready{queue!~".+\\\\.parking"})'],
      ]),
      timeseries(
        'Consumer lag p95 by queue',
        's',
        [['{{queue}}', 'histogram_quantile(0.95, sum by (queue, le) (rate(svc_message_wait_seconds_bucket[5m])))']],
        "From a message's creation (outbox included) to its first delivery to a handler.",
      ),
      timeseries('Consumers by queue', 'short', [['{{queue}}', 'max by (queue) (svc_queue_consumers)']]),
      timeseries('Parked messages by queue', 'short', [
        ['{{queue}}', 'max by (queue) (svc_queue_messages_ready{queue=~".+\\\\.parking"})'],
      ]),
    ],
  ],
  [
    'Publishing',
    [
      timeseries('Deliveries by network and outcome', 'ops', [
        ['{{provider}} {{outcome}}', 'sum by (provider, outcome) (rate(svc_delivery_attempts_total[5m]))'],
      ]),
      timeseries('Scheduler firing lag', 's', [
        ['p50', 'histogram_quantile(0.5, sum by (le) (rate(svc_scheduler_firing_lag_seconds_bucket[5m])))'],
        ['p99', 'histogram_quantile(0.99, sum by (le) (rate(svc_scheduler_firing_lag_seconds_bucket[5m])))'],
      ]),
      timeseries('Token refreshes by network and outcome', 'ops', [
        ['{{provider}} {{outcome}}', 'sum by (provider, outcome) (rate(svc_token_refresh_total[15m]))'],
      ]),
    ],
  ],
  [
    'Webhooks',
    [
      timeseries('Webhook attempts by outcome', 'ops', [
        ['{{outcome}}', 'sum by (outcome) (rate(svc_webhook_attempts_total[5m]))'],
      ]),
      timeseries('Endpoints auto-paused (per hour)', 'short', [
        ['paused', 'sum(increase(svc_webhook_endpoints_auto_paused_total[1h]))'],
      ]),
    ],
  ],
  [
    'Outbox',
    [
      timeseries('Oldest outbox message by service', 's', [
        ['{{service}}', `max by (service) (svc_outbox_oldest_message_age_seconds{${SVC}})`],
      ]),
      timeseries('Parked outbox rows by service', 'short', [
        ['{{service}}', `max by (service) (svc_outbox_parked_messages{${SVC}})`],
      ]),
    ],
  ],
  [
    'Database pools',
    [
      timeseries(
        'Pool saturation by service and pool',
        'percentunit',
        [
          [
            '{{service}} {{pool}}',
            `max by (service, pool) (svc_db_pool_connections{${SVC},state="in_use"} / ignoring (state) svc_db_pool_max{${SVC}})`,
          ],
        ],
        'Connections in use over the pool size, the busiest replica.',
      ),
      timeseries('Callers waiting for a connection', 'short', [
        ['{{service}} {{pool}}', `max by (service, pool) (svc_db_pool_waiting{${SVC}})`],
      ]),
    ],
  ],
];

/** Lays the rows out on Grafana's 24-column grid, two panels a line, and numbers the panels. */
function layout() {
  const panels = [];
  let y = 0;
  let id = 1;
  for (const [title, row] of rows) {
    panels.push({ type: 'row', title, id: id++, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y } });
    y += 1;
    row.forEach((panel, i) => {
      panels.push({ ...panel, id: id++, gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: y + Math.floor(i / 2) * 8 } });
    });
    y += Math.ceil(row.length / 2) * 8;
  }
  return panels;
}

export function dashboard() {
  return {
    uid: 'social-publishing',
    title: 'Social publishing API',
    tags: ['social-publishing'],
    timezone: 'utc',
    schemaVersion: 39,
    version: 1,
    editable: true,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    templating: {
      list: [
        { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus' },
        {
          name: 'service',
          label: 'Service',
          type: 'query',
          datasource: DATASOURCE,
          query: 'label_values(process_cpu_user_seconds_total, service)',
          refresh: 2,
          includeAll: true,
          multi: true,
          current: { text: 'All', value: '$__all' },
        },
      ],
    },
    panels: layout(),
  };
}
