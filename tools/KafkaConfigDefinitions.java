// Reads Kafka's own config definitions from the Kafka jars on the classpath and prints them as JSON.
//
// Run by tools/gen_config_definitions.py, once per Kafka version, in the JDK's source-file mode:
//     java -cp "<the kafka_2.13 jar of that version and its runtime dependencies>" KafkaConfigDefinitions.java 4.1.1
// Everything is reached by reflection so that one source reads every version from 2.8 to 4.x (the
// classes moved from Scala objects to Java between them); private Scala vals are read as fields.
//
// What it prints (one JSON object):
//   broker: every key of the broker's ConfigDef (KafkaConfig's, AbstractKafkaConfig.CONFIG_DEF from
//           4.0) plus the dynamic-only keys of DynamicConfig.Broker (the replication throttles), each
//           with type, default (ConfigDef.convertToString, as DescribeConfigs shows it), importance,
//           validator (its toString), internal, and its dynamic update mode as DynamicBrokerConfig
//           decides it: per-broker (PerBrokerConfigs), cluster-wide (the rest of AllDynamicConfigs and
//           the DynamicConfig.Broker keys), read-only (DynamicConfig.Broker.nonDynamicProps);
//   topic:  every key of LogConfig's ConfigDef, with the broker keys it falls back to
//           (ServerTopicConfigSynonyms / LogConfig.TopicConfigSynonyms) and their unit factor;
//   rules:  the sets DynamicBrokerConfig keys its prefix rules on (DynamicSecurityConfigs,
//           ClusterLevelListenerConfigs, ListenerMechanismConfigs, DynamicListenerConfig's
//           ReconfigurableConfigs) and brokerConfigSynonyms of each key that has synonyms.
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

public class KafkaConfigDefinitions {

    public static void main(String[] args) throws Exception {
        String version = args.length > 0 ? args[0] : "unknown";
        Map<String, Object> brokerKeys = configKeys(brokerConfigDef());
        // 4.2+: Java classes in org.apache.kafka.server.config; before: Scala objects in kafka.server.
        Class<?> dynamicBroker = cls("org.apache.kafka.server.config.DynamicConfig$Broker", "kafka.server.DynamicConfig$Broker$");
        Map<String, Object> quotaKeys = configKeys(fieldOfType(dynamicBroker, "org.apache.kafka.common.config.ConfigDef"));
        Set<String> dynamicNames = strings(call(dynamicBroker, "names"));

        Class<?> dbc = cls("org.apache.kafka.server.config.DynamicBrokerConfig", "kafka.server.DynamicBrokerConfig$");
        Set<String> all = strings(val(dbc, "AllDynamicConfigs", "ALL_DYNAMIC_CONFIGS"));
        Set<String> perBroker = strings(val(dbc, "PerBrokerConfigs", "PER_BROKER_CONFIGS"));
        Set<String> security = strings(val(dbc, "DynamicSecurityConfigs", "DYNAMIC_SECURITY_CONFIGS"));
        Set<String> clusterListener = strings(val(dbc, "ClusterLevelListenerConfigs", "CLUSTER_LEVEL_LISTENER_CONFIGS"));
        Set<String> mechanism = strings(val(dbc, "ListenerMechanismConfigs", "LISTENER_MECHANISM_CONFIGS"));
        Set<String> listener = strings(val(cls("org.apache.kafka.server.config.DynamicBrokerConfig$DynamicListenerConfig",
            "kafka.server.DynamicListenerConfig$"), "ReconfigurableConfigs", "RECONFIGURABLE_CONFIGS"));

        StringBuilder out = new StringBuilder();
        out.append("{\"version\":").append(q(version)).append(",\n\"broker\":{");
        TreeMap<String, String> broker = new TreeMap<>();
        for (Map.Entry<String, Object> e : brokerKeys.entrySet()) {
            String name = e.getKey();
            // DynamicBrokerConfig.nonDynamicConfigs: KafkaConfig's names minus DynamicConfig.Broker's.
            String mode = !dynamicNames.contains(name) ? "read-only"
                : perBroker.contains(name) ? "per-broker" : "cluster-wide";
            broker.put(name, key(e.getValue(), "\"mode\":" + q(mode)));
        }
        for (Map.Entry<String, Object> e : quotaKeys.entrySet()) {
            if (!brokerKeys.containsKey(e.getKey())) {
                broker.put(e.getKey(), key(e.getValue(), "\"mode\":\"cluster-wide\",\"dynamic_only\":true"));
            }
        }
        join(out, broker);
        out.append("},\n\"topic\":{");
        TreeMap<String, String> topic = new TreeMap<>();
        Map<String, List<String[]>> synonyms = topicSynonyms();
        for (Map.Entry<String, Object> e : configKeys(topicConfigDef()).entrySet()) {
            StringBuilder syn = new StringBuilder("\"synonyms\":[");
            List<String[]> list = synonyms.getOrDefault(e.getKey(), List.of());
            for (int i = 0; i < list.size(); i++) {
                syn.append(i == 0 ? "" : ",").append("[").append(q(list.get(i)[0])).append(",").append(list.get(i)[1])
                    .append("]");
            }
            topic.put(e.getKey(), key(e.getValue(), syn.append("]").toString()));
        }
        join(out, topic);
        if (Arrays.asList(args).contains("--topic-docs")) {  // the tests check the special values against these
            TreeMap<String, String> docs = new TreeMap<>();
            for (Map.Entry<String, Object> e : configKeys(topicConfigDef()).entrySet()) {
                Object doc = e.getValue().getClass().getField("documentation").get(e.getValue());
                docs.put(e.getKey(), q(String.valueOf(doc)));
            }
            out.append("},\n\"topic_docs\":{");
            join(out, docs);
        }
        // The sets in DynamicBrokerConfig's messages print as Scala's Set(a, b) or, once the class is Java, [a, b].
        out.append("},\n\"rules\":{\"java_sets\":").append(!dbc.getName().startsWith("kafka."))
            .append(",\"dynamic_security\":").append(list(security))
            .append(",\"cluster_level_listener\":").append(list(clusterListener))
            .append(",\"listener_mechanism\":").append(list(mechanism))
            .append(",\"listener_reconfigurable\":").append(list(listener))
            .append(",\"all_dynamic_unknown_to_config_def\":").append(list(minus(all, brokerKeys.keySet())))
            .append(",\"synonyms\":").append(families(dbc, brokerKeys.keySet())).append("}}");
        System.out.println(out);
    }

    // -- where each version keeps its ConfigDefs ----------------------------------------------------

    static Object brokerConfigDef() throws Exception {
        try {  // 4.0+: org.apache.kafka.server.config.AbstractKafkaConfig.CONFIG_DEF
            return Class.forName("org.apache.kafka.server.config.AbstractKafkaConfig").getField("CONFIG_DEF").get(null);
        } catch (ClassNotFoundException | NoSuchFieldException e) {
            return val(Class.forName("kafka.server.KafkaConfig$"), "configDef");  // Scala: KafkaConfig.configDef
        }
    }

    static Object topicConfigDef() throws Exception {
        try {  // 3.5+: the Java LogConfig of the storage module
            return Class.forName("org.apache.kafka.storage.internals.log.LogConfig").getMethod("configDefCopy").invoke(null);
        } catch (ClassNotFoundException e) {
            return val(Class.forName("kafka.log.LogConfig$"), "configDef");  // Scala: LogConfig.configDef
        }
    }

    /** topic key -> [broker key, factor to the topic key's unit] in precedence order. */
    static Map<String, List<String[]>> topicSynonyms() throws Exception {
        Map<String, List<String[]>> out = new TreeMap<>();
        try {  // 3.5+: ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS, with each synonym's unit converter
            Class<?> c = Class.forName("org.apache.kafka.server.config.ServerTopicConfigSynonyms");
            Map<?, ?> all = (Map<?, ?>) c.getField("ALL_TOPIC_CONFIG_SYNONYMS").get(null);
            for (Map.Entry<?, ?> e : all.entrySet()) {
                List<String[]> list = new ArrayList<>();
                for (Object s : (Collection<?>) e.getValue()) {
                    String name = (String) s.getClass().getMethod("name").invoke(s);
                    @SuppressWarnings("unchecked")
                    Function<String, String> conv = (Function<String, String>) s.getClass().getMethod("converter").invoke(s);
                    String one = conv.apply("1");
                    list.add(new String[]{name, one.matches("-?\\d+") ? one : "1"});
                }
                out.put((String) e.getKey(), list);
            }
            return out;
        } catch (ClassNotFoundException e) {
            // Before 3.5: LogConfig.TopicConfigSynonyms names one broker key per topic key; the hours and
            // minutes forms come from DynamicBrokerConfig.brokerConfigSynonyms (unit from the name).
            Object logConfig = module("kafka.log.LogConfig$");
            Object map = logConfig.getClass().getMethod("TopicConfigSynonyms").invoke(logConfig);
            Class<?> dbc = Class.forName("kafka.server.DynamicBrokerConfig$");
            Object it = map.getClass().getMethod("iterator").invoke(map);
            while ((Boolean) it.getClass().getMethod("hasNext").invoke(it)) {
                Object tuple = it.getClass().getMethod("next").invoke(it);
                String topicKey = (String) tuple.getClass().getMethod("_1").invoke(tuple);
                String brokerKey = (String) tuple.getClass().getMethod("_2").invoke(tuple);
                List<String[]> list = new ArrayList<>();
                boolean started = false;
                for (String name : strings(call(dbc, "brokerConfigSynonyms", brokerKey, false))) {
                    started |= name.equals(brokerKey);
                    if (started) {
                        String unit = name.endsWith(".hours") ? "3600000" : name.endsWith(".minutes") ? "60000" : "1";
                        list.add(new String[]{name, unit});
                    }
                }
                out.put(topicKey, list);
            }
            return out;
        }
    }

    /** name -> brokerConfigSynonyms(name, false), for the names that have synonyms (highest precedence first). */
    static String families(Class<?> dbc, Set<String> names) throws Exception {
        StringBuilder out = new StringBuilder("{");
        for (String name : new TreeSet<>(names)) {
            List<String> family = new ArrayList<>(strings(call(dbc, "brokerConfigSynonyms", name, false)));
            if (family.size() > 1) {
                out.append(out.length() > 1 ? "," : "").append(q(name)).append(":").append(list(family));
            }
        }
        return out.append("}").toString();
    }

    // -- one ConfigKey as JSON ----------------------------------------------------------------------

    static String key(Object k, String extra) throws Exception {
        Class<?> c = k.getClass();
        Object type = c.getField("type").get(k);
        Object def = c.getField("defaultValue").get(k);
        Class<?> configDef = Class.forName("org.apache.kafka.common.config.ConfigDef");
        Object noDefault = configDef.getField("NO_DEFAULT_VALUE").get(null);
        String defText;
        if (def == noDefault) {
            defText = "\"has_default\":false";
        } else {
            Method conv = configDef.getMethod("convertToString", Object.class, type.getClass());
            Object s = def == null ? null : conv.invoke(null, def, type);
            defText = "\"default\":" + (s == null ? "null" : q(s.toString()));
        }
        Object validator = c.getField("validator").get(k);
        boolean internal = false;
        try {
            internal = c.getField("internalConfig").getBoolean(k);
        } catch (NoSuchFieldException e) {
            // older ConfigDefs have no internal configs
        }
        return "{\"type\":" + q(type.toString()) + "," + defText + ",\"importance\":"
            + q(String.valueOf(c.getField("importance").get(k)))
            + (validator == null ? "" : ",\"validator\":" + q(validator.toString()))
            + (internal ? ",\"internal\":true" : "") + "," + extra + "}";
    }

    // -- reflection over Scala objects --------------------------------------------------------------

    static Object module(String name) throws Exception {
        return Class.forName(name).getField("MODULE$").get(null);
    }

    /** The first of ``names`` that exists. */
    static Class<?> cls(String... names) throws ClassNotFoundException {
        for (String name : names) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException e) {
                // the next candidate
            }
        }
        throw new ClassNotFoundException(String.join(" | ", names));
    }

    /** The instance a method or field of ``c`` is read on: null for a Java class, MODULE$ for a Scala object. */
    static Object self(Class<?> c) throws Exception {
        try {
            return c.getField("MODULE$").get(null);
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    /** A static field or a Scala object's val (private vals may carry a mangled prefix), by any of ``names``. */
    static Object val(Class<?> c, String... names) throws Exception {
        for (String name : names) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getName().equals(name) || f.getName().endsWith("$$" + name)) {
                    f.setAccessible(true);
                    return f.get(java.lang.reflect.Modifier.isStatic(f.getModifiers()) ? null : self(c));
                }
            }
        }
        throw new NoSuchFieldException(c.getName() + "." + String.join(" | ", names));
    }

    static Object call(Class<?> c, String method, Object... args) throws Exception {
        for (Method m : c.getMethods()) {
            if (m.getName().equals(method) && m.getParameterCount() == args.length) {
                return m.invoke(java.lang.reflect.Modifier.isStatic(m.getModifiers()) ? null : self(c), args);
            }
        }
        throw new NoSuchMethodException(c.getName() + "." + method);
    }

    static Object fieldOfType(Class<?> c, String type) throws Exception {
        for (Field f : c.getDeclaredFields()) {
            if (f.getType().getName().equals(type)) {
                f.setAccessible(true);
                return f.get(java.lang.reflect.Modifier.isStatic(f.getModifiers()) ? null : self(c));
            }
        }
        throw new NoSuchFieldException(c.getName() + ": no " + type);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> configKeys(Object configDef) throws Exception {
        Method m = Class.forName("org.apache.kafka.common.config.ConfigDef").getMethod("configKeys");
        return new TreeMap<>((Map<String, Object>) m.invoke(configDef));
    }

    /** A java.util.Collection or a Scala collection of strings. */
    static Set<String> strings(Object coll) throws Exception {
        Set<String> out = new java.util.LinkedHashSet<>();
        if (coll instanceof Collection) {
            for (Object o : (Collection<?>) coll) {
                out.add((String) o);
            }
            return out;
        }
        Object it = coll.getClass().getMethod("iterator").invoke(coll);
        Method hasNext = it.getClass().getMethod("hasNext");
        Method next = it.getClass().getMethod("next");
        hasNext.setAccessible(true);
        next.setAccessible(true);
        while ((Boolean) hasNext.invoke(it)) {
            out.add((String) next.invoke(it));
        }
        return out;
    }

    static Set<String> minus(Set<String> a, Set<String> b) {
        Set<String> out = new TreeSet<>(a);
        out.removeAll(b);
        return out;
    }

    // -- JSON ---------------------------------------------------------------------------------------

    static String list(Collection<String> items) {
        return ordered(items instanceof List ? items : new TreeSet<>(items));
    }

    static String ordered(Collection<String> items) {
        StringBuilder out = new StringBuilder("[");
        for (String s : items) {
            out.append(out.length() > 1 ? "," : "").append(q(s));
        }
        return out.append("]").toString();
    }

    static void join(StringBuilder out, TreeMap<String, String> entries) {
        boolean first = true;
        for (Map.Entry<String, String> e : entries.entrySet()) {
            out.append(first ? "\n" : ",\n").append(q(e.getKey())).append(":").append(e.getValue());
            first = false;
        }
    }

    static String q(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (ch < 0x20) {
                        out.append(String.format("\\u%04x", (int) ch));
                    } else {
                        out.append(ch);
                    }
            }
        }
        return out.append('"').toString();
    }
}
