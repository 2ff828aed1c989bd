/*
 * The application harness of tests/live/test_apps_live.py: the real Java clients (kafka-clients and
 * kafka-streams of the broker's release) run each workflow of authz's catalogue (`authz app list`) as a
 * SASL user, and report where it fails: the simple name of the exception the client surfaces and the
 * client call (step) that surfaced it, the same two things `authz app check` predicts.
 *
 * One JVM for every run: one JSON command per line on stdin, one JSON answer per line on stdout.
 *   {"op": "setup", ...}   as the admin super user: create topics, seed one record in each, set group configs
 *   {"op": "run", "workflow": KIND, "user": U, "password": P, "config": {...}, ...}
 *   {"op": "quit"}
 * A run answers {"works": bool, "exception": name|null, "step": name|null, "chain": [...], "message": ..., "ms": n}.
 *
 * The step names are the catalogue's (kafka_authz_cli/apps/catalogue.py): each is one call of the client's
 * public API, and a run stops at the first that throws. Exceptions are unwrapped as an application sees
 * them: ExecutionException (a Future's get()), CompletionException, Kafka Streams' StreamsException and a
 * bare KafkaException wrapper to their cause (the outermost wrapper is reported as surfaced_as).
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Produced;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public final class AppHarness {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static PrintStream out;

    /** A client call that may throw; the harness names it. */
    interface Step {
        void run() throws Exception;
    }

    /** A workflow stopped at a step: the step's name and what it threw. */
    static final class StepFailure extends Exception {
        final String step;
        final Throwable failure;
        final String surfacedAs;

        StepFailure(String step, Throwable failure) {
            super(step, failure);
            this.step = step;
            Throwable cause = unwrap(failure);
            this.failure = cause;
            this.surfacedAs = cause == failure ? null : failure.getClass().getSimpleName();
        }
    }

    /** A workflow that ran but did not get what it needs, with no exception (a filtered answer). */
    static final class Silent extends Exception {
        final String step;

        Silent(String step, String message) {
            super(message);
            this.step = step;
        }
    }

    /** Every client is closed with a bound: a client in an error state may otherwise wait forever. */
    static final Duration CLOSE = Duration.ofSeconds(5);

    /**
     * Closes a client after its workflow. When the workflow already failed, what close meets next is an
     * echo of that failure (a share consumer whose poll was refused throws "Failed to close Kafka share
     * consumer" from close) and must not replace the failure the test predicts; when the workflow
     * succeeded, a failing close is its last step and is reported as such.
     */
    static void closeAfter(Throwable failed, AutoCloseable client) throws StepFailure {
        try {
            client.close();
        } catch (Throwable t) {
            if (failed == null) throw new StepFailure("close", t);
            failed.addSuppressed(t);
        }
    }

    static void step(String name, Step body) throws StepFailure {
        try {
            body.run();
        } catch (Throwable t) {
            throw new StepFailure(name, t);
        }
    }

    static Throwable unwrap(Throwable t) {
        // A Future's get() wraps the client's exception; Kafka Streams wraps what its threads meet in a
        // StreamsException (as the StreamsUncaughtExceptionHandler receives it); a producer in a fatal
        // state wraps the error that put it there in a bare KafkaException ("Cannot execute
        // transactional method because we are in an error state"): the cause is what failed.
        while ((t instanceof ExecutionException || t instanceof CompletionException
                || t instanceof org.apache.kafka.streams.errors.StreamsException
                || t.getClass() == org.apache.kafka.common.KafkaException.class) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    public static void main(String[] args) throws Exception {
        // stdout carries the answers only; the clients' own logging goes to stderr (log4j2 config).
        out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode cmd = JSON.readTree(line);
            String op = cmd.path("op").asText();
            if (op.equals("quit")) break;
            ObjectNode answer = JSON.createObjectNode();
            long t0 = System.nanoTime();
            try {
                if (op.equals("setup")) {
                    setup(cmd);
                    answer.put("works", true);
                } else {
                    run(cmd);
                    answer.put("works", true);
                    answer.putNull("exception");
                    answer.putNull("step");
                }
            } catch (StepFailure f) {
                answer.put("works", false);
                answer.put("exception", f.failure.getClass().getSimpleName());
                answer.put("surfaced_as", f.surfacedAs);
                answer.put("step", f.step);
                answer.put("message", String.valueOf(f.failure.getMessage()));
                var chain = answer.putArray("chain");
                for (Throwable c = f.failure; c != null; c = c.getCause()) chain.add(c.getClass().getSimpleName());
            } catch (Silent s) {
                answer.put("works", false);
                answer.putNull("exception");
                answer.put("step", s.step);
                answer.put("message", s.getMessage());
            } catch (Throwable t) {
                answer.put("works", false);
                answer.put("harness_error", t.toString());
            }
            answer.put("ms", (System.nanoTime() - t0) / 1_000_000);
            out.println(JSON.writeValueAsString(answer));
        }
    }

    // ---- configuration ------------------------------------------------------------------------------

    static Properties login(JsonNode cmd) {
        Properties p = new Properties();
        p.put("bootstrap.servers", cmd.path("bootstrap").asText());
        p.put("security.protocol", "SASL_PLAINTEXT");
        p.put("sasl.mechanism", "SCRAM-SHA-256");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + cmd.path("user").asText() + "\" password=\"" + cmd.path("password").asText() + "\";");
        // A failure must surface quickly: every blocking call is bounded.
        long timeout = cmd.path("timeout_ms").asLong(8000);
        p.put("default.api.timeout.ms", String.valueOf(timeout));
        p.put("request.timeout.ms", String.valueOf(Math.min(timeout, 5000)));
        p.put("max.block.ms", String.valueOf(timeout));
        p.put("delivery.timeout.ms", String.valueOf(timeout + 1000));
        p.put("linger.ms", "0");
        p.put("retry.backoff.ms", "50");
        p.put("reconnect.backoff.ms", "50");
        return p;
    }

    static Properties with(Properties base, JsonNode config) {
        Properties p = new Properties();
        p.putAll(base);
        config.fields().forEachRemaining(e -> p.put(e.getKey(), e.getValue().asText()));
        return p;
    }

    static List<String> list(JsonNode node) {
        List<String> values = new ArrayList<>();
        node.forEach(n -> values.add(n.asText()));
        return values;
    }

    static long timeout(JsonNode cmd) {
        return cmd.path("timeout_ms").asLong(8000);
    }

    // ---- setup (as the admin super user) ------------------------------------------------------------

    static void setup(JsonNode cmd) throws Exception {
        Properties p = login(cmd);
        try (Admin admin = Admin.create(p)) {
            List<NewTopic> topics = new ArrayList<>();
            for (String t : list(cmd.path("topics"))) topics.add(new NewTopic(t, 1, (short) 1));
            if (!topics.isEmpty()) {
                try {
                    admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) throw e;
                }
            }
            if (cmd.has("feature")) {
                var updates = new HashMap<String, org.apache.kafka.clients.admin.FeatureUpdate>();
                cmd.path("feature").fields().forEachRemaining(e -> updates.put(e.getKey(),
                        new org.apache.kafka.clients.admin.FeatureUpdate((short) e.getValue().asInt(),
                                org.apache.kafka.clients.admin.FeatureUpdate.UpgradeType.UPGRADE)));
                admin.updateFeatures(updates, new org.apache.kafka.clients.admin.UpdateFeaturesOptions())
                        .all().get(30, TimeUnit.SECONDS);
            }
            for (JsonNode g : cmd.path("group_configs")) {
                ConfigResource r = new ConfigResource(ConfigResource.Type.GROUP, g.path("group").asText());
                List<AlterConfigOp> ops = new ArrayList<>();
                g.path("configs").fields().forEachRemaining(e -> ops.add(new AlterConfigOp(
                        new ConfigEntry(e.getKey(), e.getValue().asText()), AlterConfigOp.OpType.SET)));
                admin.incrementalAlterConfigs(Map.of(r, ops)).all().get(30, TimeUnit.SECONDS);
            }
        }
        List<String> seed = list(cmd.path("seed"));
        if (!seed.isEmpty()) {
            Properties pp = with(p, JSON.createObjectNode());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
                for (String t : seed) producer.send(new ProducerRecord<>(t, "k", "seed")).get(30, TimeUnit.SECONDS);
            }
        }
    }

    // ---- workflows ----------------------------------------------------------------------------------

    static void run(JsonNode cmd) throws Exception {
        String workflow = cmd.path("workflow").asText();
        switch (workflow) {
            case "producer" -> producer(cmd);
            case "consumer" -> consumer(cmd);
            case "share-consumer" -> shareConsumer(cmd);
            case "consume-transform-produce" -> consumeTransformProduce(cmd);
            case "streams" -> streams(cmd);
            case "admin-create-topics" -> admin(cmd, a -> step("createTopics", () -> a.createTopics(
                    list(cmd.path("topics")).stream().map(t -> new NewTopic(t, 1, (short) 1)).toList()).all().get()));
            case "admin-delete-topics" -> admin(cmd, a -> step("deleteTopics", () ->
                    a.deleteTopics(list(cmd.path("topics"))).all().get()));
            case "admin-describe-configs" -> admin(cmd, a -> step("describeConfigs", () -> a.describeConfigs(
                    list(cmd.path("topics")).stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList())
                    .all().get()));
            case "admin-alter-configs" -> admin(cmd, a -> step("incrementalAlterConfigs", () -> {
                Map<ConfigResource, Collection<AlterConfigOp>> ops = new HashMap<>();
                for (String t : list(cmd.path("topics")))
                    ops.put(new ConfigResource(ConfigResource.Type.TOPIC, t),
                            List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "86400000"), AlterConfigOp.OpType.SET)));
                a.incrementalAlterConfigs(ops).all().get();
            }));
            case "admin-describe-topics" -> admin(cmd, a -> step("describeTopics", () ->
                    a.describeTopics(list(cmd.path("topics"))).allTopicNames().get()));
            case "admin-list-groups" -> admin(cmd, a -> listGroups(cmd, a));
            case "admin-describe-groups" -> admin(cmd, a -> step("describeConsumerGroups", () ->
                    a.describeConsumerGroups(list(cmd.path("groups"))).all().get()));
            case "admin-list-offsets" -> admin(cmd, a -> {
                AtomicReference<Map<TopicPartition, OffsetAndMetadata>> got = new AtomicReference<>();
                step("listConsumerGroupOffsets", () -> got.set(
                        a.listConsumerGroupOffsets(cmd.path("group").asText()).partitionsToOffsetAndMetadata().get()));
                for (String t : list(cmd.path("topics")))
                    if (!got.get().containsKey(new TopicPartition(t, 0)))
                        throw new Silent("listConsumerGroupOffsets", "topic " + t + " is not in the answer");
            });
            case "admin-reset-offsets" -> admin(cmd, a -> {
                Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
                for (String t : list(cmd.path("topics"))) specs.put(new TopicPartition(t, 0), OffsetSpec.earliest());
                step("listOffsets", () -> a.listOffsets(specs).all().get());
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (String t : list(cmd.path("topics"))) offsets.put(new TopicPartition(t, 0), new OffsetAndMetadata(0));
                step("alterConsumerGroupOffsets", () -> a.alterConsumerGroupOffsets(cmd.path("group").asText(), offsets).all().get());
            });
            case "admin-delete-records" -> admin(cmd, a -> {
                Map<TopicPartition, RecordsToDelete> records = new HashMap<>();
                for (String t : list(cmd.path("topics"))) records.put(new TopicPartition(t, 0), RecordsToDelete.beforeOffset(0));
                step("deleteRecords", () -> a.deleteRecords(records).all().get());
            });
            default -> throw new IllegalArgumentException("unknown workflow " + workflow);
        }
    }

    interface AdminBody {
        void run(Admin admin) throws Exception;
    }

    static void admin(JsonNode cmd, AdminBody body) throws Exception {
        Admin admin = Admin.create(with(login(cmd), cmd.path("config")));
        try {
            body.run(admin);
        } finally {
            admin.close(CLOSE);
        }
    }

    static void listGroups(JsonNode cmd, Admin a) throws Exception {
        AtomicReference<Collection<GroupListing>> listed = new AtomicReference<>();
        step("listGroups", () -> listed.set(a.listGroups().all().get()));
        Set<String> names = new java.util.HashSet<>();
        listed.get().forEach(g -> names.add(g.groupId()));
        for (String g : list(cmd.path("groups"))) {
            if (!names.contains(g)) throw new Silent("listGroups", "group " + g + " is not in the answer");
        }
    }

    static void producer(JsonNode cmd) throws Exception {
        Properties p = with(login(cmd), cmd.path("config"));
        List<String> topics = list(cmd.path("topics"));
        boolean transactional = p.containsKey("transactional.id");
        AtomicReference<KafkaProducer<String, String>> ref = new AtomicReference<>();
        step("KafkaProducer", () -> ref.set(new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())));
        KafkaProducer<String, String> producer = ref.get();
        try {
            if (transactional) {
                step("initTransactions", producer::initTransactions);
                step("beginTransaction", producer::beginTransaction);
            }
            for (String t : topics) {
                step("send", () -> producer.send(new ProducerRecord<>(t, "k", "v")).get(timeout(cmd), TimeUnit.MILLISECONDS));
            }
            if (transactional) step("commitTransaction", producer::commitTransaction);
            else step("flush", producer::flush);
        } finally {
            producer.close(CLOSE);
        }
    }

    static void consumer(JsonNode cmd) throws Exception {
        Properties p = with(login(cmd), cmd.path("config"));
        p.putIfAbsent("auto.offset.reset", "earliest");
        p.putIfAbsent("enable.auto.commit", "false");
        List<String> topics = list(cmd.path("topics"));
        boolean grouped = p.containsKey("group.id");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
        Exception failed = null;
        try {
            if (grouped) {
                step("subscribe", () -> consumer.subscribe(topics));
            } else {
                step("assign", () -> consumer.assign(topics.stream().map(t -> new TopicPartition(t, 0)).toList()));
            }
            pollUntilRecords(cmd, consumer, topics.size());
            if (grouped) step("commitSync", consumer::commitSync);
        } catch (Exception e) {
            failed = e;
            throw e;
        } finally {
            closeAfter(failed, () -> consumer.close(CLOSE));
        }
    }

    static void pollUntilRecords(JsonNode cmd, KafkaConsumer<String, String> consumer, int wanted) throws Exception {
        long deadline = System.currentTimeMillis() + timeout(cmd);
        Set<String> seen = new java.util.HashSet<>();
        while (seen.size() < wanted) {
            if (System.currentTimeMillis() > deadline)
                throw new Silent("poll", "no record within " + timeout(cmd) + " ms");
            AtomicReference<ConsumerRecords<String, String>> got = new AtomicReference<>();
            step("poll", () -> got.set(consumer.poll(Duration.ofMillis(200))));
            for (ConsumerRecord<String, String> r : got.get()) seen.add(r.topic());
        }
    }

    static void shareConsumer(JsonNode cmd) throws Exception {
        Properties p = with(login(cmd), cmd.path("config"));
        List<String> topics = list(cmd.path("topics"));
        KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(p, new StringDeserializer(), new StringDeserializer());
        Exception failed = null;
        try {
            step("subscribe", () -> consumer.subscribe(topics));
            long deadline = System.currentTimeMillis() + timeout(cmd);
            int received = 0;
            while (received == 0) {
                if (System.currentTimeMillis() > deadline)
                    throw new Silent("poll", "no record within " + timeout(cmd) + " ms");
                AtomicReference<ConsumerRecords<String, String>> got = new AtomicReference<>();
                step("poll", () -> got.set(consumer.poll(Duration.ofMillis(200))));
                // Implicit acknowledgement (share.acknowledgement.mode's default): the next poll or
                // commitSync acknowledges what this poll delivered.
                received += got.get().count();
            }
            step("commitSync", () -> consumer.commitSync());
        } catch (Exception e) {
            failed = e;
            throw e;
        } finally {
            closeAfter(failed, () -> consumer.close(CLOSE));
        }
    }

    static void consumeTransformProduce(JsonNode cmd) throws Exception {
        Properties c = with(login(cmd), cmd.path("consumer_config"));
        c.putIfAbsent("auto.offset.reset", "earliest");
        c.putIfAbsent("enable.auto.commit", "false");
        c.putIfAbsent("isolation.level", "read_committed");
        Properties p = with(login(cmd), cmd.path("producer_config"));
        String input = cmd.path("input").asText();
        String output = cmd.path("output").asText();
        AtomicReference<KafkaProducer<String, String>> ref = new AtomicReference<>();
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
        try {
            step("KafkaProducer", () -> ref.set(new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())));
            KafkaProducer<String, String> producer = ref.get();
            try {
                step("initTransactions", producer::initTransactions);
                step("subscribe", () -> consumer.subscribe(List.of(input)));
                long deadline = System.currentTimeMillis() + timeout(cmd);
                ConsumerRecords<String, String> records = ConsumerRecords.empty();
                while (records.isEmpty()) {
                    if (System.currentTimeMillis() > deadline)
                        throw new Silent("poll", "no record within " + timeout(cmd) + " ms");
                    AtomicReference<ConsumerRecords<String, String>> got = new AtomicReference<>();
                    step("poll", () -> got.set(consumer.poll(Duration.ofMillis(200))));
                    records = got.get();
                }
                step("beginTransaction", producer::beginTransaction);
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (ConsumerRecord<String, String> r : records) {
                    step("send", () -> producer.send(new ProducerRecord<>(output, r.key(), r.value())).get(timeout(cmd), TimeUnit.MILLISECONDS));
                    offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                step("sendOffsetsToTransaction", () -> producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata()));
                step("commitTransaction", producer::commitTransaction);
            } finally {
                producer.close(CLOSE);
            }
        } finally {
            consumer.close(CLOSE);
        }
    }

    /** Where a Streams application meets what fails on its stream thread. */
    static final String HANDLER = "StreamsUncaughtExceptionHandler";

    static void streams(JsonNode cmd) throws Exception {
        Properties p = with(login(cmd), cmd.path("config"));
        p.put(StreamsConfig.STATE_DIR_CONFIG, cmd.path("state_dir").asText());
        p.putIfAbsent(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        // Emit at once: no record cache, frequent commits (what the application does, not what it needs).
        p.putIfAbsent(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        p.putIfAbsent(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
        String input = cmd.path("input").asText();
        String output = cmd.path("output").asText();
        StreamsBuilder builder = new StreamsBuilder();
        var stream = builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()));
        if (cmd.path("stateful").asBoolean(false)) {
            // A repartition topic (selectKey then groupByKey) and a changelog topic (count's store).
            stream.selectKey((k, v) -> v).groupByKey(Grouped.with(Serdes.String(), Serdes.String())).count()
                    .toStream().mapValues(String::valueOf).to(output, Produced.with(Serdes.String(), Serdes.String()));
        } else {
            stream.mapValues(v -> v.toUpperCase()).to(output, Produced.with(Serdes.String(), Serdes.String()));
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        try {
            streams.setUncaughtExceptionHandler(e -> {
                failure.compareAndSet(null, e);
                return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            });
            // The application works once its output topic holds a new record (read as admin, from the
            // end the topic had before the application started).
            Properties a = login(cmd.path("admin"));
            a.put("auto.offset.reset", "latest");
            a.put("isolation.level", "read_committed");
            try (KafkaConsumer<String, String> check = new KafkaConsumer<>(a, new StringDeserializer(), new StringDeserializer())) {
                TopicPartition out0 = new TopicPartition(output, 0);
                check.assign(List.of(out0));
                check.seekToEnd(List.of(out0));
                check.position(out0);
                step("KafkaStreams.start", streams::start);
                long deadline = System.currentTimeMillis() + cmd.path("streams_timeout_ms").asLong(20000);
                while (true) {
                    if (failure.get() != null) throw new StepFailure(HANDLER, failure.get());
                    if (streams.state() == KafkaStreams.State.ERROR || streams.state() == KafkaStreams.State.PENDING_ERROR)
                        throw new StepFailure(HANDLER, new IllegalStateException("ERROR state"));
                    if (!check.poll(Duration.ofMillis(200)).isEmpty()) break;
                    if (System.currentTimeMillis() > deadline)
                        throw new Silent(HANDLER, "no output within the timeout (state " + streams.state() + ")");
                }
            }
        } finally {
            streams.close(CLOSE);
        }
    }

}
