// Records Long.parseLong and Double.parseDouble for tests/config/data/java_numbers.json:
//     java tools/JavaNumbers.java inputs.txt   (one base64 UTF-8 input a line; prints one base64 line each:
//     Long.toString or "NFE:" + message, a NUL, Double.toString or "NFE:" + message)
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

public class JavaNumbers {
    public static void main(String[] args) throws Exception {
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            String s = new String(Base64.getDecoder().decode(line), "UTF-8");
            String l;
            String d;
            try {
                l = Long.toString(Long.parseLong(s));
            } catch (NumberFormatException e) {
                l = "NFE:" + e.getMessage();
            }
            try {
                d = Double.toString(Double.parseDouble(s));
            } catch (NumberFormatException e) {
                d = "NFE:" + e.getMessage();
            }
            System.out.println(Base64.getEncoder().encodeToString((l + "\u0000" + d).getBytes("UTF-8")));
        }
    }
}
