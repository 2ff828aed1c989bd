// What java.util.Properties.load(InputStream) makes of each input (Kafka: Utils.loadProps).
// stdin: one base64-encoded input per line; stdout per input: "ok" then base64(key) TAB base64(value) lines
// sorted by key, then "end"; or "error <exception message>".
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class LoadProps {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        PrintStream out = new PrintStream(System.out, true, "US-ASCII");
        Base64.Encoder enc = Base64.getEncoder();
        String line;
        while ((line = in.readLine()) != null) {
            byte[] data = Base64.getDecoder().decode(line);
            Properties props = new Properties();
            try {
                props.load(new ByteArrayInputStream(data));
            } catch (IllegalArgumentException e) {
                out.println("error " + e.getMessage());
                continue;
            }
            out.println("ok");
            TreeMap<String, String> sorted = new TreeMap<>();
            for (String k : props.stringPropertyNames()) sorted.put(k, props.getProperty(k));
            for (Map.Entry<String, String> e : sorted.entrySet())
                out.println(enc.encodeToString(e.getKey().getBytes(StandardCharsets.UTF_8)) + "\t"
                        + enc.encodeToString(e.getValue().getBytes(StandardCharsets.UTF_8)));
            out.println("end");
        }
    }
}
