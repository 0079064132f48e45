package io.thriftnio.testkit.conformance;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.support.ParameterDeclarations;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * A transport's servers for the {@link ServerCellSuite}s: one subclass per transport says which
 * cells make up each {@link Matrix}; a suite's subclass names it in {@code @ArgumentsSource}. The
 * cells that run are those {@link Cells#select} keeps, printed under the test class's name.
 */
public abstract class TransportCells implements ArgumentsProvider {

  /**
   * Every cell of {@code matrix} on this transport, in order, the representative ones marked.
   *
   * @throws IllegalArgumentException if the transport has no cells for {@code matrix}
   */
  protected abstract List<? extends ServerCell<?>> cells(Matrix matrix);

  @Override
  public Stream<? extends Arguments> provideArguments(
      ParameterDeclarations parameters, ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    Matrix matrix =
        AnnotationSupport.findAnnotation(testClass, Matrix.Of.class)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        testClass.getName()
                            + " names no matrix (expected: @Matrix.Of on its suite)"))
            .value();
    return Cells.select(testClass, List.copyOf(cells(matrix))).map(Arguments::of);
  }
}
